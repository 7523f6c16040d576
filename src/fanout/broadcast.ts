/**
 * Messages every node hears: how live tail reaches the nodes whose clients tail an organisation.
 * Delivery is at most once and best effort, as live tail is: what the store holds is the record.
 */
export interface Broadcast {
  /** This node's id; it does not hear its own messages back. */
  readonly node: string;
  /** Resolves false when the message was dropped (too many waiting to be sent). */
  publish(channel: string, message: string): Promise<boolean>;
  subscribe(channel: string, handler: (message: string) => void): void;
  close(): Promise<void>;
}
