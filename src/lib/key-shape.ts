/**
 * The shape of an API key: 32 hex characters (128 bits), as Mezmo issues them. Here, below both the
 * configuration that makes keys and the HTTP layer that reads them from requests (it tells a key
 * from a Basic auth user name).
 */
export const KEY_SHAPE = /^[0-9a-f]{32}$/i;
