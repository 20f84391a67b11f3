// The agent panel: the tab's DevTools agent, its current task, what it reported (agent.activity), pause and resume.

import { h, replaceChildren, setText } from "./dom.js";
import { activityLine, describe, errorText } from "./format.js";
import type { Rpc } from "./rpc.js";
import { Scope } from "./scope.js";
import { mayUse } from "./session.js";
import type { AgentActivity, AgentEvent, AgentState } from "./types.js";

const MAX_LINES = 200;

/** The panel `#agent`: empty while the tab has no agent; else `#agent-state`, `#agent-task`, `ol#agent-status`, `#agent-pause`, `#agent-resume`. */
export class AgentPanel {
  readonly element: HTMLElement;
  private readonly stateText: HTMLElement;
  private readonly task: HTMLElement;
  private readonly lines: HTMLOListElement;
  private readonly message: HTMLElement;
  private readonly pause: HTMLButtonElement;
  private readonly resume: HTMLButtonElement;
  private readonly content: HTMLElement[];
  private readonly scope = new Scope();
  private agent: AgentState | null = null;
  /** When the task shown began (ms since epoch): an older one from a late tabs.list answer does not replace it. */
  private taskAt = 0;

  constructor(
    private readonly rpc: Rpc,
    private readonly target: string,
  ) {
    this.element = h("section", { id: "agent", class: "agent-panel", "aria-label": "Agent", hidden: true });
    this.stateText = h("span", { id: "agent-state" });
    this.task = h("span", { id: "agent-task" }, "none yet");
    this.lines = h("ol", { id: "agent-status", class: "agent-status", "aria-label": "Agent activity" });
    this.message = h("p", { class: "status", role: "status", "aria-live": "polite" });
    this.pause = h("button", { id: "agent-pause", type: "button" }, "Pause");
    this.resume = h("button", { id: "agent-resume", type: "button" }, "Resume");
    this.content = [
      h("h2", {}, "Agent"),
      h("p", {}, "State: ", this.stateText),
      h("p", {}, "Task: ", this.task),
      h("div", { class: "controls", hidden: !mayUse("agents") }, this.pause, this.resume),
      this.message,
      this.lines,
    ];
    this.scope.listen(this.pause, "click", () => void this.setPaused(true));
    this.scope.listen(this.resume, "click", () => void this.setPaused(false));
    this.scope.add(rpc.on<AgentActivity>("agent.activity", (activity) => this.onActivity(activity)));
    this.scope.add(rpc.on<AgentEvent>("agent.connected", (event) => this.onAgentEvent(event, "connected")));
    this.scope.add(rpc.on<AgentEvent>("agent.ready", (event) => this.onAgentEvent(event, "ready")));
    this.scope.add(rpc.on<AgentEvent>("agent.disconnected", (event) => this.onAgentEvent(event, null)));
  }

  /** Shows the agent as tabs.list or an event gave it (null: none; the panel empties). */
  show(agent: AgentState | null): void {
    this.agent = agent;
    this.element.hidden = agent === null;
    if (!agent) {
      replaceChildren(this.element);
      delete this.element.dataset.state;
      return;
    }
    if (this.element.childElementCount === 0) replaceChildren(this.element, ...this.content);
    this.element.dataset.state = agent.state;
    const paused = agent.paused === true;
    this.element.toggleAttribute("data-paused", paused);
    setText(this.stateText, `${agent.state}${paused ? " (paused)" : ""}`);
    this.setDisabled(this.pause, paused);
    this.setDisabled(this.resume, agent.paused === false);
  }

  /** Shows the task tabs.list says the agent is running, unless it is the one shown already. */
  showTask(task: { requestId: string; input: string; startedAt: number } | undefined): void {
    if (!task || task.requestId === this.task.dataset.requestId || task.startedAt < this.taskAt) return;
    this.setTask(task.requestId, task.input);
    this.taskAt = task.startedAt;
  }

  private setTask(requestId: string, input: string): void {
    setText(this.task, input || "(no input)");
    this.task.dataset.requestId = requestId;
    delete this.task.dataset.done;
  }

  /** Whether it shows an agent now. */
  get hasAgent(): boolean {
    return this.agent !== null;
  }

  /** Whether the agent shown is paused (null: no agent, or not known). */
  get paused(): boolean | null {
    return this.agent?.paused ?? null;
  }

  /** Stops listening. */
  dispose(): void {
    this.scope.dispose();
  }

  /** agent.connected, .ready and .disconnected of this tab: a new agent's pause state is not known yet. */
  private onAgentEvent(event: AgentEvent, state: "connected" | "ready" | null): void {
    if (event.target !== this.target) return;
    if (state === null) this.show(null);
    else this.show({ state, paused: state === "ready" ? (this.agent?.paused ?? null) : null });
  }

  private onActivity(activity: AgentActivity): void {
    if (activity.target !== this.target) return;
    const agent = this.agent ?? { state: "ready", paused: null };
    if (activity.kind === "paused" || activity.kind === "resumed") agent.paused = activity.kind === "paused";
    if (activity.kind === "task") {
      this.setTask(activity.requestId ?? "", describe(activity.input));
      this.taskAt = activity.at || Date.now();
    }
    if (activity.kind === "done" && (!activity.requestId || activity.requestId === this.task.dataset.requestId))
      this.task.dataset.done = "";
    this.show(agent);
    const item = h("li", { "data-kind": activity.kind }, activityLine(activity));
    this.lines.append(item);
    while (this.lines.childElementCount > MAX_LINES) this.lines.firstElementChild?.remove();
  }

  private async setPaused(paused: boolean): Promise<void> {
    const method = paused ? "agent.pause" : "agent.resume";
    setText(this.message, paused ? "Pausing…" : "Resuming…");
    try {
      const answer = await this.rpc.call<{ paused: boolean }>(method, { target: this.target });
      if (this.scope.isDisposed) return;
      setText(this.message, answer.paused ? "Paused." : "Resumed.");
      if (this.agent) this.show({ ...this.agent, paused: answer.paused });
    } catch (error) {
      if (!this.scope.isDisposed) setText(this.message, `${method} failed: ${errorText(error)}`);
    }
  }

  /** Disables a button; the focus, if it was on it, moves to the other one so that it is not lost. */
  private setDisabled(button: HTMLButtonElement, disabled: boolean): void {
    const hadFocus = document.activeElement === button;
    button.disabled = disabled;
    if (disabled && hadFocus) (button === this.pause ? this.resume : this.pause).focus();
  }
}
