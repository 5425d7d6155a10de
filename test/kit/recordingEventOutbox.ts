/** A producer's event outbox as a dependency, in memory: the events recorded, in order; can be told to fail. */
import type { EventOutbox, OutboxEvent } from '../../services/runtime/outbox.js';

export class RecordingEventOutbox implements EventOutbox {
  events: OutboxEvent[] = [];
  failWith: Error | null = null;
  async record(event: OutboxEvent): Promise<void> {
    if (this.failWith) throw this.failWith;
    this.events.push(event);
  }
}
