/** A producer's event outbox as a dependency, in memory: the events recorded, in order; can be told to fail. */
import type { EventOutbox, OutboxEvent } from '../../services/runtime/outbox.js';

export class RecordingEventOutbox implements EventOutbox {
  events: OutboxEvent[] = [];
  failWith: Error | null = null;
  /** As the real outbox: nothing is changed when the event cannot be written; a failed change records nothing. */
  async around<T>(event: OutboxEvent, change: () => Promise<T>): Promise<T> {
    if (this.failWith) throw this.failWith;
    const result = await change();
    this.events.push(event);
    return result;
  }

  /** As the real outbox: one write after the change; a failure reaches the caller. */
  async record(event: OutboxEvent): Promise<void> {
    if (this.failWith) throw this.failWith;
    this.events.push(event);
  }
}
