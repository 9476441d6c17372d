/**
 * A fresh random (version 4) UUID. Built on `crypto.getRandomValues`, which a page has in any
 * context: `crypto.randomUUID` exists only in a secure one, and the page is not always served
 * from one (the end-to-end tests serve it over plain http).
 */
export function newId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6]! & 0x0f) | 0x40;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
