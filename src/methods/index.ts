import type { MethodDefinition } from "../rpc/method.js";
import type { HubServices } from "../services.js";
import { cancel } from "./cancel.js";
import { clientsList } from "./clients-list.js";
import { evaluate } from "./evaluate.js";
import { navigate } from "./navigate.js";
import { ping } from "./ping.js";
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
  cancel,
];
