/**
 * One passkey as the account page (/v2/me/passkeys) and the connect page (manage/list) show it:
 * authenticator name and icon (AAGUID details), created, last used, synced or device-bound, and a
 * Delete button. Both APIs answer the same passkey fields, so both pages render it here.
 */
import { formatTime } from './common.js';

export interface Passkey {
  id: string;
  backupState: boolean;
  createdMs: number;
  lastUsedMs: number;
  aaguidDetails?: { name: string; iconLight: string };
}

/** Creates an element with properties and children. */
export function el<K extends keyof HTMLElementTagNameMap>(tag: K, props: Partial<HTMLElementTagNameMap[K]> = {}, ...children: (Node | string)[]): HTMLElementTagNameMap[K] {
  const node = Object.assign(document.createElement(tag), props);
  node.append(...children);
  return node;
}

function time(ms: number): HTMLTimeElement {
  return el('time', { dateTime: ms ? new Date(ms).toISOString() : '' }, formatTime(ms));
}

/**
 * `<li class="{itemClass}" data-id="{id}">` with the passkey's details and a
 * `<button class="{deleteClass} secondary">` that calls `onDelete(button, id, name)`.
 */
export function passkeyItem(p: Passkey, o: { itemClass: string; deleteClass: string; onDelete: (button: HTMLButtonElement, id: string, name: string) => void }): HTMLLIElement {
  const name = p.aaguidDetails?.name || 'Passkey';
  const li = el('li', { className: o.itemClass });
  li.dataset.id = p.id;
  const icon = el('img', { src: p.aaguidDetails?.iconLight ?? '', alt: '', width: 28, height: 28 });
  const sync = el('span', { className: `passkey-sync badge ${p.backupState ? 'synced' : 'device-bound'}` }, p.backupState ? 'synced' : 'device-bound');
  sync.title = p.backupState ? 'Backed up and synced by its password manager' : 'Kept on one device only';
  const del = el('button', { type: 'button', className: `${o.deleteClass} secondary` }, 'Delete');
  del.setAttribute('aria-label', `Delete passkey ${name}, created ${formatTime(p.createdMs)}`);
  del.addEventListener('click', () => o.onDelete(del, p.id, name));
  li.append(
    el(
      'div',
      { className: 'passkey-info' },
      el('span', { className: 'passkey-name' }, icon, name),
      el('span', { className: 'passkey-created' }, 'Created ', time(p.createdMs)),
      el('span', { className: 'passkey-last-used' }, 'Last used ', time(p.lastUsedMs)),
      sync,
    ),
    del,
  );
  return li;
}
