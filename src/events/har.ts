import type { NetworkEntry } from "./network-log.js";

/** A HAR 1.2 document (http://www.softwareishard.com/blog/har-12-spec/), as network.har gives it. */
export interface Har {
  log: { version: "1.2"; creator: { name: string; version: string }; pages: []; entries: HarEntry[] };
}

// A type, not an interface: the generated result type takes each entry as a record.
type HarEntry = {
  startedDateTime: string;
  time: number;
  request: {
    method: string;
    url: string;
    httpVersion: string;
    cookies: [];
    headers: { name: string; value: string }[];
    queryString: { name: string; value: string }[];
    postData?: { mimeType: string; text: string };
    headersSize: -1;
    bodySize: number;
  };
  response: {
    status: number;
    statusText: string;
    httpVersion: string;
    cookies: [];
    headers: { name: string; value: string }[];
    content: { size: number; mimeType: string; text?: string; encoding?: "base64" };
    redirectURL: string;
    headersSize: -1;
    bodySize: number;
    _error?: string;
  };
  cache: Record<string, never>;
  timings: { send: number; wait: number; receive: number };
  _resourceType: string;
  _requestId: string;
};

/** A response body as HAR keeps it: text, or base64 with its encoding. */
export interface HarBody {
  text: string;
  base64: boolean;
}

/**
 * The log's requests as HAR 1.2 entries: headers, query strings, request bodies, statuses, sizes and timings, and the
 * response bodies given in `bodies` (by request id).
 */
export function buildHar(
  entries: readonly NetworkEntry[],
  creator: { name: string; version: string },
  bodies: ReadonlyMap<string, HarBody> = new Map(),
): Har {
  return { log: { version: "1.2", creator, pages: [], entries: entries.map((entry) => harEntry(entry, bodies.get(entry.requestId))) } };
}

function harEntry(entry: NetworkEntry, body: HarBody | undefined): HarEntry {
  const wait = round(entry.responseMs ?? 0);
  const time = round(entry.durationMs ?? entry.responseMs ?? 0);
  const contentType = entry.requestHeaders["Content-Type"] ?? entry.requestHeaders["content-type"] ?? "application/octet-stream";
  const location = entry.responseHeaders?.location ?? entry.responseHeaders?.Location ?? "";
  return {
    startedDateTime: new Date(entry.startedAt).toISOString(),
    time,
    request: {
      method: entry.method,
      url: entry.url,
      httpVersion: entry.httpVersion ?? "",
      cookies: [],
      headers: headerList(entry.requestHeaders),
      queryString: queryOf(entry.url),
      ...(entry.postData === undefined ? {} : { postData: { mimeType: contentType, text: entry.postData } }),
      headersSize: -1,
      bodySize: entry.postData === undefined ? 0 : Buffer.byteLength(entry.postData),
    },
    response: {
      status: entry.status ?? 0,
      statusText: entry.statusText ?? "",
      httpVersion: entry.httpVersion ?? "",
      cookies: [],
      headers: headerList(entry.responseHeaders ?? {}),
      content: {
        size: entry.encodedBytes ?? 0,
        mimeType: entry.mimeType ?? "",
        ...(body ? { text: body.text, ...(body.base64 ? { encoding: "base64" as const } : {}) } : {}),
      },
      redirectURL: location,
      headersSize: -1,
      bodySize: entry.encodedBytes ?? -1,
      ...(entry.errorText === undefined ? {} : { _error: entry.errorText }),
    },
    cache: {},
    timings: { send: 0, wait, receive: round(Math.max(0, time - wait)) },
    _resourceType: entry.resourceType,
    _requestId: entry.requestId,
  };
}

function headerList(headers: Record<string, string>): { name: string; value: string }[] {
  return Object.entries(headers).map(([name, value]) => ({ name, value }));
}

function queryOf(url: string): { name: string; value: string }[] {
  try {
    return [...new URL(url).searchParams].map(([name, value]) => ({ name, value }));
  } catch {
    return [];
  }
}

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}
