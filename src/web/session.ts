export interface Session {
  account: string;
  name: string;
  csrfToken: string;
  features?: { email: boolean };
}
