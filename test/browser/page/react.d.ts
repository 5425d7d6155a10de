/**
 * The few React 18 APIs connectReactPage.ts uses. The project installs react and react-dom only to
 * bundle the published @corbado/connect-react into the test page, without @types/react.
 */
declare module 'react' {
  export interface ReactElement {
    readonly type: unknown;
    readonly props: unknown;
  }
  export function createElement(type: unknown, props?: Record<string, unknown> | null, ...children: unknown[]): ReactElement;
}

declare module 'react-dom/client' {
  import type { ReactElement } from 'react';
  export function createRoot(container: Element): { render(element: ReactElement | null): void; unmount(): void };
}
