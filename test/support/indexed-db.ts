/** The database the IndexedDB tests write: two stores (one with indexes), nested values, and records JSON cannot carry. */
export const WRITE_SHOP = `(async () => {
  const done = (request) => new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
  const opening = indexedDB.open("shop", 3);
  opening.onupgradeneeded = () => {
    const items = opening.result.createObjectStore("items", { keyPath: "id" });
    items.createIndex("byName", "name", { unique: true });
    items.createIndex("byTag", "tags", { unique: false, multiEntry: true });
    opening.result.createObjectStore("settings");
  };
  const db = await done(opening);
  const transaction = db.transaction(["items", "settings"], "readwrite");
  const items = transaction.objectStore("items");
  items.put({ id: 1, name: "pen", tags: ["office", "blue"], meta: { sizes: [1, 2], maker: { name: "Ink", since: 1999, open: true, note: null } } });
  items.put({ id: 2, name: "cup", tags: ["kitchen"], meta: {} });
  items.put({ id: 3, name: "clock", made: new Date(0) });
  const settings = transaction.objectStore("settings");
  settings.put("dark", "theme");
  settings.put({ columns: [["name", 120], ["price", 80]] }, ["layout", 2]);
  settings.put("binary key", new Uint8Array([1, 2]).buffer);
  settings.put(new Uint8Array([3, 4]), "bytes");
  await new Promise((resolve, reject) => { transaction.oncomplete = resolve; transaction.onabort = () => reject(transaction.error); });
  db.close();
  return "written";
})()`;

/** Reads the shop database back as plain JSON: the databases listed, its version, each store's shape, keys and values. */
export const READ_SHOP = `(async () => {
  const done = (request) => new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
  const listed = (await indexedDB.databases()).map((each) => [each.name, each.version]);
  if (!listed.some(([name]) => name === "shop")) return { listed };
  const db = await done(indexedDB.open("shop"));
  const transaction = db.transaction([...db.objectStoreNames], "readonly");
  const stores = {};
  for (const name of db.objectStoreNames) {
    const store = transaction.objectStore(name);
    const indexes = [...store.indexNames].map((indexName) => {
      const index = store.index(indexName);
      return { name: indexName, keyPath: index.keyPath, unique: index.unique, multiEntry: index.multiEntry };
    });
    const keys = (await done(store.getAllKeys())).map((key) => (key instanceof ArrayBuffer ? "ArrayBuffer" : key));
    const values = (await done(store.getAll())).map((value) => (ArrayBuffer.isView(value) ? "Uint8Array" : value));
    stores[name] = { keyPath: store.keyPath, autoIncrement: store.autoIncrement, indexes, keys, values };
  }
  const items = transaction.objectStore("items");
  const found = {
    cupByName: (await done(items.index("byName").get("cup")))?.id ?? null,
    officeByTag: await done(items.index("byTag").getAllKeys("office")),
  };
  db.close();
  return { listed, version: db.version, stores, found };
})()`;

/** What READ_SHOP gives after the database went through JSON: the Date, bytes and binary-key records are left out. */
export const SHOP_AFTER_JSON = {
  listed: [["shop", 3]],
  version: 3,
  stores: {
    items: {
      keyPath: "id",
      autoIncrement: false,
      indexes: [
        { name: "byName", keyPath: "name", unique: true, multiEntry: false },
        { name: "byTag", keyPath: "tags", unique: false, multiEntry: true },
      ],
      keys: [1, 2],
      values: [
        {
          id: 1,
          name: "pen",
          tags: ["office", "blue"],
          meta: { sizes: [1, 2], maker: { name: "Ink", since: 1999, open: true, note: null } },
        },
        { id: 2, name: "cup", tags: ["kitchen"], meta: {} },
      ],
    },
    settings: {
      keyPath: null,
      autoIncrement: false,
      indexes: [],
      // IndexedDB's order: strings before arrays.
      keys: ["theme", ["layout", 2]],
      values: [
        "dark",
        {
          columns: [
            ["name", 120],
            ["price", 80],
          ],
        },
      ],
    },
  },
  found: { cupByName: 2, officeByTag: [1] },
};
