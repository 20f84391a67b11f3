import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import type { ServerResponse } from "node:http";
import { pipeline } from "node:stream/promises";
import type { HubServices } from "../services.js";
import type { Grant } from "../transport/auth.js";
import { HttpError } from "./http-io.js";

/** `GET /downloads/:id`: a completed download's file, for a token that reaches its client; anything else is 404. */
export async function sendDownload(
  { services, grant }: { services: HubServices; grant: Grant },
  downloadId: string,
  response: ServerResponse,
): Promise<void> {
  const download = services.downloads.get(downloadId, (clientId) => services.clients.canSee(grant, clientId));
  // Another client's download is as unknown as one that never was.
  if (!download || download.state !== "completed")
    throw new HttpError(404, { code: 404, message: "no completed download with that id for this token (downloads.list names them)" });
  const file = services.downloads.fileOf(download);
  const { size } = await stat(file).catch(() => {
    throw new HttpError(404, { code: 404, message: "the download's file is gone (past DOWNLOAD_TTL_MS)" });
  });
  const name = download.filename.replace(/[^\w.\- ]/g, "_") || "download";
  response.writeHead(200, {
    "content-type": "application/octet-stream",
    "content-length": String(size),
    "content-disposition": `attachment; filename="${name}"`,
    "x-content-type-options": "nosniff",
  });
  await pipeline(createReadStream(file), response);
}
