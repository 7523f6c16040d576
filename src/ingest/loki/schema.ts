import protobuf from 'protobufjs';

/**
 * The part of Loki's push schema a push carries (pkg/push/push.proto, logproto.PushRequest), as a
 * protobufjs JSON descriptor, so that no .proto file has to travel beside the compiled code:
 *
 *   message PushRequest { repeated StreamAdapter streams = 1; }
 *   message StreamAdapter { string labels = 1; repeated EntryAdapter entries = 2; uint64 hash = 3; }
 *   message EntryAdapter { google.protobuf.Timestamp timestamp = 1; string line = 2;
 *                          repeated LabelPairAdapter structuredMetadata = 3; }
 *   message LabelPairAdapter { string name = 1; string value = 2; }
 *   message Timestamp { int64 seconds = 1; int32 nanos = 2; }
 *
 * Field numbers are what matters on the wire; the hash is never read.
 */
const descriptor = {
  nested: {
    logproto: {
      nested: {
        PushRequest: { fields: { streams: { rule: 'repeated', type: 'StreamAdapter', id: 1 } } },
        StreamAdapter: {
          fields: {
            labels: { type: 'string', id: 1 },
            entries: { rule: 'repeated', type: 'EntryAdapter', id: 2 },
            hash: { type: 'uint64', id: 3 },
          },
        },
        EntryAdapter: {
          fields: {
            timestamp: { type: 'Timestamp', id: 1 },
            line: { type: 'string', id: 2 },
            structuredMetadata: { rule: 'repeated', type: 'LabelPairAdapter', id: 3 },
          },
        },
        LabelPairAdapter: { fields: { name: { type: 'string', id: 1 }, value: { type: 'string', id: 2 } } },
        Timestamp: { fields: { seconds: { type: 'int64', id: 1 }, nanos: { type: 'int32', id: 2 } } },
      },
    },
  },
};

export const PushRequest = protobuf.Root.fromJSON(descriptor).lookupType('logproto.PushRequest');

/** A decoded push, as protobufjs gives it (int64 as a Long or a number). */
export interface ProtoPush {
  streams?: Array<{
    labels?: string;
    entries?: Array<{
      timestamp?: { seconds?: number | { toString(): string }; nanos?: number } | null;
      line?: string;
      structuredMetadata?: Array<{ name?: string; value?: string }>;
    }>;
  }>;
}
