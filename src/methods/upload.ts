import { HubError } from "../errors.js";
import { referencedElementOf } from "../runtime/act.js";
import { actOn, defineMethod } from "../services.js";

const FILE_INPUT = `function (count) {
  if (this.tagName !== "INPUT" || this.type !== "file") return "the element is not an input of type file";
  if (this.disabled) return "the file input is disabled";
  if (count > 1 && !this.multiple) return "the file input takes one file (it has no multiple attribute)";
  return "";
}`;

/** `upload`: writes the caller's files to the hub's upload folder and sets them on a file input. */
export const upload = defineMethod("upload", { runs: "tab", needs: "act", acts: true }, async (params, call) => {
  const element = referencedElementOf(params, "upload");
  const files = params.files.map((file) => ({ name: file.name, data: Buffer.from(file.data, "base64") }));
  return actOn(call, { target: params.target, method: "upload", changes: params.changes }, async (scope) => {
    const input = await scope.object(element);
    const refusal = await scope.callFunction<string>(input, FILE_INPUT, [files.length]);
    if (refusal) throw new HubError("INVALID_PARAMS", `invalid params for upload: ${refusal}`);
    const paths = await call.services.uploads.write(scope.tab.tabId, files);
    await input.session.send("DOM.setFileInputFiles", { files: paths, objectId: input.objectId }, { budget: call.budget });
  });
});
