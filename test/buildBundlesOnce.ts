/**
 * Vitest global setup: compiles the local processes (deploy/local/buildBundles.ts) once, before
 * any test file starts them, so parallel test files find the bundles ready instead of each
 * building them at the same moment.
 */
import { buildBundles } from '../deploy/local/buildBundles.js';

export default async function setup(): Promise<void> {
  await buildBundles();
}
