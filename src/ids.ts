import { v4 as uuidv4 } from "uuid";

/**
 * A new random id (UUID v4) as one flat string. Node builds `randomUUID()` by concatenating its hex bytes, which
 * leaves a tree of string pieces behind (about 480 bytes on the heap instead of 48) for as long as the id is kept:
 * ids kept per connection or subscription are copied once into a flat string here.
 */
export function newId(): string {
  return Buffer.from(uuidv4(), "latin1").toString("latin1");
}
