import { readFile, stat } from "node:fs/promises";
import { HubError } from "../errors.js";
import { defineMethod } from "../services.js";

/** `downloads.get`: a completed download's file, base64, up to maxSize (larger ones over HTTP, GET /downloads/:id). */
export const downloadsGet = defineMethod("downloads.get", { runs: "here", needs: "read", reads: true }, async (params, call) => {
  const { downloads, clients, config } = call.services;
  const download = downloads.get(params.downloadId, (clientId) => clients.canSee(call.connection, clientId));
  const refuse = (message: string): HubError =>
    new HubError("INVALID_PARAMS", `downloadId ${message}`, { errors: [{ path: "/downloadId", message }] });
  // Another client's download is as unknown as one that never was.
  if (!download) throw refuse("names no download of a client this token reaches (finished ones are kept for DOWNLOAD_TTL_MS)");
  if (download.state !== "completed") throw refuse(`names a download that is ${download.state}: it has no file`);
  const file = downloads.fileOf(download);
  const maxSize = params.maxSize ?? config.maxResultBytes;
  const { size } = await stat(file);
  if (size > maxSize)
    throw refuse(`names a file of ${size} bytes, over maxSize (${maxSize}): fetch it over HTTP, GET /downloads/${download.downloadId}`);
  return { download: { ...download }, data: (await readFile(file)).toString("base64") };
});
