import type { MethodDefinition } from "../rpc/method.js";
import type { HubServices } from "../services.js";
import { agentCall } from "./agent-call.js";
import { agentRun } from "./agent-run.js";
import { callOn } from "./call-on.js";
import { cancel } from "./cancel.js";
import { clientsList } from "./clients-list.js";
import { consoleList } from "./console-list.js";
import { consoleSubscribe } from "./console-subscribe.js";
import { consoleUnsubscribe } from "./console-unsubscribe.js";
import { content } from "./content.js";
import { evaluate } from "./evaluate.js";
import { eventsSubscribe } from "./events-subscribe.js";
import { navigate } from "./navigate.js";
import { ping } from "./ping.js";
import { screenshot } from "./screenshot.js";
import { snapshot } from "./snapshot.js";
import { tabsActivate } from "./tabs-activate.js";
import { tabsClose } from "./tabs-close.js";
import { tabsList } from "./tabs-list.js";
import { tabsOpen } from "./tabs-open.js";

/** Every method the hub serves: the one list. */
export const METHODS: readonly MethodDefinition<HubServices>[] = [
  ping,
  clientsList,
  tabsList,
  tabsOpen,
  tabsClose,
  tabsActivate,
  navigate,
  evaluate,
  callOn,
  snapshot,
  screenshot,
  content,
  cancel,
  consoleSubscribe,
  consoleUnsubscribe,
  consoleList,
  eventsSubscribe,
  agentRun,
  agentCall,
];
