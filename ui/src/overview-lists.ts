// What the overview knows of clients and tabs: the lists clients.list and tabs.list last gave, with what events said
// since (a tab opened, renamed or closed, a client made or disposed), so that they show at once, before the next read.

import type { ClientInfo, Tab, TabOpened, TabUpdated } from "./types.js";

/** The lists as last read, with the events since applied. */
export interface Lists {
  clients: ClientInfo[];
  tabs: Tab[];
}

type Change = (lists: Lists) => Lists;

/** tab.opened: the tab, untitled until tab.updated or the next read says more. */
export function tabOpened(event: TabOpened): Change {
  return (lists) => {
    if (lists.tabs.some((tab) => tab.target === event.target)) return lists;
    const { target, clientId, tabId, url } = event;
    const tab: Tab = { target, clientId, tabId, url, title: "", agent: null, activatedAt: null };
    return { ...lists, tabs: [...lists.tabs, tab] };
  };
}

/** tab.updated: the tab's new URL and title. */
export function tabUpdated(event: TabUpdated): Change {
  return (lists) => ({
    ...lists,
    tabs: lists.tabs.map((tab) => (tab.target === event.target ? { ...tab, url: event.url, title: event.title } : tab)),
  });
}

/** tab.closed: the tab goes. */
export function tabClosed(target: string): Change {
  return (lists) => ({ ...lists, tabs: lists.tabs.filter((tab) => tab.target !== target) });
}

/** client.opened: the client's section shows, empty until its tab does. */
export function clientOpened(clientId: string): Change {
  return (lists) =>
    lists.clients.some((client) => client.clientId === clientId)
      ? lists
      : { ...lists, clients: [...lists.clients, { clientId, agent: null, tabs: [] }] };
}

/** client.closed: the client goes (a client with no tab and no agent is disposed). */
export function clientClosed(clientId: string): Change {
  return (lists) => ({ ...lists, clients: lists.clients.filter((client) => client.clientId !== clientId) });
}

/**
 * The lists and the events that came after the newest read was sent: a read's answer, which may have left the
 * hub before those events, gets them applied again, so an answer never takes back what an event showed.
 */
export class ListNews {
  private current: Lists | null = null;
  private changes: Array<{ seq: number; change: Change }> = [];
  private seq = 0;

  /** The lists to show, or null before the first read answered. */
  get lists(): Lists | null {
    return this.current;
  }

  /** A mark to give read() with the read's answer: the events after it are applied to that answer. */
  mark(): number {
    return this.seq;
  }

  /** An event's change: applied now, and to the answers of reads sent before it. */
  apply(change: Change): void {
    this.changes.push({ seq: ++this.seq, change });
    if (this.current) this.current = change(this.current);
  }

  /** A read's answer, sent at `mark`. */
  read(lists: Lists, mark: number): void {
    this.changes = this.changes.filter((entry) => entry.seq > mark);
    this.current = this.changes.reduce((applied, entry) => entry.change(applied), lists);
  }
}
