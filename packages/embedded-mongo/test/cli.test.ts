/**
 * The CLI as a process: its one `listening on` line, a usable server behind it, a clean SIGTERM
 * exit that releases the data directory, and refusal of bad arguments.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTempDir, removeTempDir, runCli, startCli, stopCli, type CliProcess } from './cliProcess.js';

/** Test documents of any shape (the driver's default schema types `_id` as ObjectId). */
 
type Loose = { _id: string | number; [key: string]: any };

describe.skipIf(!!process.env.MONGODB_URI)('embedded-mongo CLI', () => {
  let dir: string;
  let proc: CliProcess | undefined;

  beforeEach(async () => {
    dir = await makeTempDir();
    proc = undefined;
  });
  afterEach(async () => {
    if (proc) await stopCli(proc, 'SIGKILL');
    await removeTempDir(dir);
  });

  it('prints exactly one `listening on` line with the real port, serves the driver, and exits 0 on SIGTERM', async () => {
    const dataDir = join(dir, 'data');
    proc = await startCli(['--port', '0', '--data-dir', dataDir]);
    expect(proc.line).toMatch(/^listening on mongodb:\/\/127\.0\.0\.1:\d+$/);
    expect(proc.port).toBeGreaterThan(0);
    expect(proc.port).toBeLessThan(65536);

    // The lock names the server process while it runs.
    const lock = join(dataDir, 'mongod.lock');
    expect(readFileSync(lock, 'utf8').trim()).toBe(String(proc.child.pid));

    const client = new MongoClient(proc.uri, { serverSelectionTimeoutMS: 5000 });
    try {
      await client.connect();
      const coll = client.db('cli').collection<{ _id: number; v: string }>('c');
      await coll.insertOne({ _id: 1, v: 'hello' });
      expect(await coll.findOne({ _id: 1 })).toEqual({ _id: 1, v: 'hello' });
      expect((await client.db('admin').command({ ping: 1 })).ok).toBe(1);
    } finally {
      await client.close();
    }

    const exit = await stopCli(proc, 'SIGTERM');
    expect(exit).toEqual({ code: 0, signal: null });
    expect(existsSync(lock)).toBe(false);
    // Exactly one line, nothing else, over the whole life of the process.
    expect(proc.stdout()).toBe(`${proc.line}\n`);
    proc = undefined;
  });

  it('keeps its data across a SIGTERM restart', async () => {
    const dataDir = join(dir, 'data');
    proc = await startCli(['--port', '0', '--data-dir', dataDir]);
    let client = new MongoClient(proc.uri, { serverSelectionTimeoutMS: 5000 });
    await client.connect();
    await client.db('cli').collection<Loose>('c').insertMany([{ _id: 1 }, { _id: 2 }]);
    await client.close();
    expect((await stopCli(proc)).code).toBe(0);

    proc = await startCli(['--port', '0', '--data-dir', dataDir]);
    client = new MongoClient(proc.uri, { serverSelectionTimeoutMS: 5000 });
    try {
      await client.connect();
      expect(await client.db('cli').collection<Loose>('c').find().sort({ _id: 1 }).toArray()).toEqual([{ _id: 1 }, { _id: 2 }]);
    } finally {
      await client.close();
    }
    expect((await stopCli(proc)).code).toBe(0);
    proc = undefined;
  });

  it('runs memory-only without --data-dir and exits 0 on SIGINT', async () => {
    proc = await startCli(['--port', '0']);
    const client = new MongoClient(proc.uri, { serverSelectionTimeoutMS: 5000 });
    try {
      await client.connect();
      expect((await client.db('admin').command({ ping: 1 })).ok).toBe(1);
    } finally {
      await client.close();
    }
    expect(await stopCli(proc, 'SIGINT')).toEqual({ code: 0, signal: null });
    proc = undefined;
  });

  it('with --stop-with-stdin, exits 0 when its stdin closes (its supervisor is gone) and not before', async () => {
    proc = await startCli(['--port', '0', '--stop-with-stdin']);
    await new Promise((r) => setTimeout(r, 300));
    expect(proc.child.exitCode).toBeNull();
    proc.child.stdin!.end();
    const timer = setTimeout(() => proc?.child.kill('SIGKILL'), 10_000);
    expect(await proc.exited).toEqual({ code: 0, signal: null });
    clearTimeout(timer);
    proc = undefined;
  });

  it.each([
    [['--port', 'abc'], /--port must be 0\.\.65535, got abc/],
    [['--port', '70000'], /--port must be 0\.\.65535/],
    [['--port=-1'], /--port must be 0\.\.65535/],
    [['--port', '1.5'], /--port must be 0\.\.65535/],
    [['--ttl-interval', '0'], /--ttl-interval must be/],
    [['--compact-after-bytes', 'lots'], /--compact-after-bytes must be/],
    [['--cache-mb', 'lots'], /--cache-mb must be/],
  ])('refuses %j with a non-zero exit and a message', async (args, message) => {
    const r = await runCli([...args]);
    expect(r.code).not.toBe(0);
    expect(r.code).not.toBeNull();
    expect(r.stderr).toMatch(message);
    expect(r.stdout).not.toMatch(/listening on/);
  });

  it('documents every option in --help', async () => {
    const r = await runCli(['--help']);
    expect(r.code).toBe(0);
    for (const opt of ['--port', '--data-dir', '--ttl-interval', '--compact-after-bytes', '--cache-mb']) expect(r.stdout).toContain(opt);
  });

  it('exits non-zero with a message when the port is taken', async () => {
    const blocker: Server = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      const r = await runCli(['--port', String(port), '--data-dir', join(dir, 'data')]);
      expect(r.code).not.toBe(0);
      expect(r.code).not.toBeNull();
      expect(r.stderr).toMatch(/EADDRINUSE|in use/);
      expect(r.stdout).toBe('');
    } finally {
      await new Promise<void>((resolve) => blocker.close(() => resolve()));
    }
  });

  it('refuses a data directory another running server holds', async () => {
    const dataDir = join(dir, 'data');
    proc = await startCli(['--port', '0', '--data-dir', dataDir]);
    const r = await runCli(['--port', '0', '--data-dir', dataDir]);
    expect(r.code).not.toBe(0);
    expect(r.code).not.toBeNull();
    expect(r.stderr).toMatch(/in use/);
    expect(r.stdout).toBe('');
    // The refused second process left the first one's lock alone.
    expect(readFileSync(join(dataDir, 'mongod.lock'), 'utf8').trim()).toBe(String(proc.child.pid));
    expect((await stopCli(proc)).code).toBe(0);
    proc = undefined;
  });
});
