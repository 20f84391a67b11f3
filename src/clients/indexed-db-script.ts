/**
 * The page script that reads an origin's IndexedDB: `(READ_INDEXED_DB)(maxBytes, timeMs)` answers the JSON text of
 * `{databases}` (Playwright's storage state shape: name, version, stores with keyPath or keyPathArray, autoIncrement,
 * indexes and records), `{tooLarge: bytes}` once the records' JSON passes maxBytes, or `{timedOut: true}` after timeMs.
 * A record whose value (or, in a store without a keyPath, whose key) is not plain JSON is left out.
 */
export const READ_INDEXED_DB = `async function (maxBytes, timeMs) {
  const until = Date.now() + timeMs;
  const encoder = new TextEncoder();
  let bytes = 0;
  const done = (request) => new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
  // Only what JSON gives back as it was: a Date, bytes, a Map or a NaN would come back as something else, or not at all.
  const isJson = (value, depth) => {
    if (value === null || typeof value === "string" || typeof value === "boolean") return true;
    if (typeof value === "number") return Number.isFinite(value);
    if (typeof value !== "object" || depth > 64) return false;
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) if (!(i in value) || !isJson(value[i], depth + 1)) return false;
      return true;
    }
    const proto = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) return false;
    for (const key of Object.keys(value)) if (!isJson(value[key], depth + 1)) return false;
    return true;
  };
  const keyPathOf = (keyPath) =>
    typeof keyPath === "string" ? { keyPath } : Array.isArray(keyPath) ? { keyPathArray: [...keyPath] } : {};
  const readStore = (store) => new Promise((resolve, reject) => {
    const records = [];
    const inline = store.keyPath !== null;
    const cursor = store.openCursor();
    cursor.onerror = () => reject(cursor.error);
    cursor.onsuccess = () => {
      const at = cursor.result;
      if (!at) return resolve(records);
      if (Date.now() > until) return reject(new Error("timedOut"));
      const record = inline ? { value: at.value } : { key: at.primaryKey, value: at.value };
      if (isJson(record, 0)) {
        bytes += encoder.encode(JSON.stringify(record)).length;
        if (bytes > maxBytes) return reject(new Error("tooLarge"));
        records.push(record);
      }
      at.continue();
    };
  });
  const readDatabase = async (name) => {
    const opening = indexedDB.open(name);
    // Gone since it was listed: opening it without a version would make an empty one.
    opening.onupgradeneeded = () => opening.transaction.abort();
    const db = await done(opening);
    try {
      const names = [...db.objectStoreNames];
      const stores = [];
      const transaction = names.length > 0 ? db.transaction(names, "readonly") : null;
      for (const storeName of names) {
        const store = transaction.objectStore(storeName);
        const indexes = [...store.indexNames].map((indexName) => {
          const index = store.index(indexName);
          return { name: index.name, ...keyPathOf(index.keyPath), unique: index.unique, multiEntry: index.multiEntry };
        });
        const records = await readStore(store);
        stores.push({ name: storeName, autoIncrement: store.autoIncrement, ...keyPathOf(store.keyPath), indexes, records });
      }
      return { name, version: db.version, stores };
    } finally {
      db.close();
    }
  };
  const databases = [];
  try {
    for (const { name } of await indexedDB.databases()) {
      if (typeof name !== "string") continue;
      try {
        databases.push(await readDatabase(name));
      } catch (error) {
        if (error && (error.message === "tooLarge" || error.message === "timedOut")) throw error;
      }
    }
  } catch (error) {
    if (error && error.message === "tooLarge") return JSON.stringify({ tooLarge: bytes });
    if (error && error.message === "timedOut") return JSON.stringify({ timedOut: true });
    throw error;
  }
  return JSON.stringify({ databases });
}`;

/**
 * The page script that writes databases read by READ_INDEXED_DB into the page's origin, where none of their names is:
 * `(WRITE_INDEXED_DB)(databases)` makes each at its version with its stores, indexes and records, all in the upgrade's
 * transaction, and answers `{failed: [{index, message}]}`: those it could not write (and did not make), with Chrome's reason.
 */
export const WRITE_INDEXED_DB = `async function (databases) {
  const done = (request) => new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
  const keyPathOf = (each) => each.keyPathArray ?? each.keyPath ?? null;
  const put = (target, record) => {
    // Playwright's encoded forms (keyEncoded, valueEncoded) are not read: such a record is left out.
    if (!("value" in record)) return;
    if (target.keyPath !== null) target.put(record.value);
    else if ("key" in record) target.put(record.value, record.key);
    else if (target.autoIncrement) target.put(record.value);
  };
  const write = async (database) => {
    const opening = indexedDB.open(database.name, database.version);
    let reason = null;
    // Made and filled in the upgrade's own transaction: a database that cannot be written whole is not made at all.
    opening.onupgradeneeded = () => {
      const upgrade = opening.transaction;
      upgrade.addEventListener("abort", () => { reason ??= upgrade.error; });
      try {
        for (const store of database.stores) {
          const made = opening.result.createObjectStore(store.name, { keyPath: keyPathOf(store), autoIncrement: store.autoIncrement });
          for (const index of store.indexes)
            made.createIndex(index.name, keyPathOf(index), { unique: index.unique, multiEntry: index.multiEntry });
          for (const record of store.records) put(made, record);
        }
      } catch (error) {
        reason = error;
        upgrade.abort();
      }
    };
    try {
      (await done(opening)).close();
    } catch (error) {
      throw reason ?? error;
    }
  };
  const failed = [];
  for (let index = 0; index < databases.length; index++) {
    try {
      await write(databases[index]);
    } catch (error) {
      failed.push({ index, message: String(error && error.message ? error.name + ": " + error.message : error) });
    }
  }
  return { failed };
}`;
