import { audit } from "../log.js";
import type { DownloadNotice } from "./client-downloads.js";
import { webOrigin } from "./client-storage.js";

/** A download in audit.log: which client, where from (the origin only: a URL's path and query may carry secrets), how it ended. */
export function auditDownload(clientId: string, notice: Parameters<DownloadNotice>[1]): void {
  const params = notice.params as { downloadId: string; url?: string; state?: string; bytes?: number; sha256?: string };
  const from = params.url === undefined ? {} : { origin: webOrigin(params.url) ?? "(not a web URL)" };
  const ended = params.state === undefined ? {} : { state: params.state, bytes: params.bytes, sha256: params.sha256 };
  audit(notice.method, { clientId, downloadId: params.downloadId, ...from, ...ended });
}
