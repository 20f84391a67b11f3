import { HubError } from "../errors.js";
import { acquireTab, defineMethod } from "../services.js";

/** `dialog.handle`: accepts or dismisses the dialog left open on a tab under DIALOG_POLICY=manual. */
export const dialogHandle = defineMethod("dialog.handle", { runs: "tab", needs: "act" }, async (params, call) => {
  const { tab } = await acquireTab(call, params.target);
  const open = tab.openDialog;
  if (!open) {
    const why =
      tab.dialogPolicy === "manual"
        ? "no dialog is open on this tab"
        : `the hub answers dialogs itself (DIALOG_POLICY=${tab.dialogPolicy})`;
    throw new HubError("INVALID_PARAMS", `invalid params for dialog.handle: ${why}`, { errors: [{ path: "/target", message: why }] });
  }
  const promptText = params.promptText === undefined ? {} : { promptText: params.promptText };
  await tab.send("Page.handleJavaScriptDialog", { accept: params.accept, ...promptText }, { budget: call.budget });
  const defaultPrompt = open.defaultPrompt ? { defaultPrompt: open.defaultPrompt } : {};
  return { ok: true, dialog: { type: open.type, message: open.message, ...defaultPrompt } };
});
