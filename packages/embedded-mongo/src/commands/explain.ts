/**
 * `explain` (what the driver's `cursor.explain()` sends), and `aggregate` with `explain: true`:
 * which plan a read would use, in the shape of MongoDB 7's classic engine output, so that code
 * walking `queryPlanner.winningPlan` (an `IXSCAN` with `indexName` under a `FETCH`, or a
 * `COLLSCAN`) reads both the same way. With the `executionStats` verbosities the read runs (a
 * write is only planned and counted, never applied) and reports keys and documents examined.
 */
import type { Collection, QueryRun } from '../collection.js';
import { isPlainObject, type Doc } from '../documents.js';
import { MongoCommandError } from '../errors.js';
import type { QueryPlan } from '../planner.js';
import { collectionName, optionalDoc, optionalNumber, type CommandContext, type CommandHandler } from './context.js';
import { SERVER_VERSION } from './handshake.js';

const VERBOSITIES = ['queryPlanner', 'executionStats', 'allPlansExecution'];

interface ReadShape {
  coll: string;
  filter: Doc;
  sort?: Doc;
  skip: number;
  limit: number;
  projection?: Doc;
  /** The stage MongoDB puts above the read for a write or a count. */
  top?: string;
}

export const explain: CommandHandler = (cmd, ctx) => {
  const inner = cmd.explain;
  if (!isPlainObject(inner) || Object.keys(inner).length === 0) throw new MongoCommandError('FailedToParse', "explain's argument must be a command document");
  const verbosity = cmd.verbosity === undefined ? 'allPlansExecution' : cmd.verbosity;
  if (typeof verbosity !== 'string' || !VERBOSITIES.includes(verbosity)) throw new MongoCommandError('BadValue', `verbosity string must be one of {'queryPlanner', 'executionStats', 'allPlansExecution'}`);
  const name = Object.keys(inner)[0];
  if (name === 'aggregate') return explainAggregate(inner, ctx, verbosity);
  return explainRead(readShapeOf(name, inner), inner, ctx, verbosity);
};

/** The read inside each explainable command. */
function readShapeOf(name: string, cmd: Doc): ReadShape {
  switch (name) {
    case 'find':
      return {
        coll: collectionName(cmd, 'find'),
        filter: optionalDoc(cmd, 'filter') ?? {},
        sort: optionalDoc(cmd, 'sort'),
        skip: optionalNumber(cmd, 'skip') ?? 0,
        limit: Math.abs(optionalNumber(cmd, 'limit') ?? 0),
        projection: optionalDoc(cmd, 'projection'),
      };
    case 'count':
      return { coll: collectionName(cmd, 'count'), filter: optionalDoc(cmd, 'query') ?? {}, skip: optionalNumber(cmd, 'skip') ?? 0, limit: Math.abs(optionalNumber(cmd, 'limit') ?? 0), top: 'COUNT' };
    case 'distinct':
      return { coll: collectionName(cmd, 'distinct'), filter: optionalDoc(cmd, 'query') ?? {}, skip: 0, limit: 0, top: 'PROJECTION_DEFAULT' };
    case 'findAndModify':
    case 'findandmodify':
      return {
        coll: collectionName(cmd, name),
        filter: optionalDoc(cmd, 'query') ?? {},
        sort: optionalDoc(cmd, 'sort'),
        skip: 0,
        limit: 1,
        top: cmd.remove === true ? 'DELETE' : 'UPDATE',
      };
    case 'delete':
    case 'update': {
      const statements = cmd[name === 'delete' ? 'deletes' : 'updates'];
      const s = Array.isArray(statements) && statements.length === 1 ? statements[0] : null;
      if (!isPlainObject(s)) throw new MongoCommandError('BadValue', `explained ${name} must have exactly one statement`);
      const filter = isPlainObject(s.q) ? s.q : {};
      const single = name === 'delete' ? s.limit === 1 : s.multi !== true;
      return { coll: collectionName(cmd, name), filter, skip: 0, limit: single ? 1 : 0, top: name.toUpperCase() };
    }
    default:
      throw new MongoCommandError('CommandNotFound', `Explain failed due to unknown command: ${name}`);
  }
}

function explainRead(read: ReadShape, inner: Doc, ctx: CommandContext, verbosity: string): Doc {
  const coll = ctx.catalog.get(ctx.db, read.coll);
  const run = execute(coll, read);
  let stage = readStages(run, read);
  if (read.projection && Object.keys(read.projection).length) stage = { stage: 'PROJECTION_DEFAULT', transformBy: read.projection, inputStage: stage };
  if (read.top) stage = { stage: read.top, inputStage: stage };
  return reply(`${ctx.db}.${read.coll}`, read.filter, stage, run, inner, ctx, verbosity);
}

/** Plans (and, for the stats, runs) the read; a missing collection is an empty scan, as in mongod (`EOF`). */
function execute(coll: Collection | undefined, read: ReadShape): QueryRun {
  if (!coll) return { docs: [], plan: { kind: 'collscan' }, keysExamined: 0, docsExamined: 0 };
  return coll.query(read.filter, { sort: read.sort, limit: read.limit > 0 ? read.skip + read.limit : 0 });
}

/** The plan tree of a read: the access stage, then the sort, skip and limit above it. */
function readStages(run: QueryRun, read: ReadShape): Doc {
  let stage = accessStage(run.plan, read.filter);
  const sort = read.sort && Object.keys(read.sort).length ? read.sort : undefined;
  const indexSorted = run.plan.kind === 'ixscan' && run.plan.sorted;
  if (read.skip > 0) stage = { stage: 'SKIP', skipAmount: read.skip, inputStage: stage };
  if (sort && !indexSorted) {
    stage = { stage: 'SORT', sortPattern: sort, memLimit: 104857600, ...(read.limit > 0 ? { limitAmount: read.skip + read.limit } : {}), type: 'simple', inputStage: stage };
  } else if (read.limit > 0) {
    stage = { stage: 'LIMIT', limitAmount: read.limit, inputStage: stage };
  }
  return stage;
}

function accessStage(plan: QueryPlan, filter: Doc): Doc {
  if (plan.kind === 'idhack') return { stage: 'IDHACK' };
  if (plan.kind === 'collscan') return { stage: 'COLLSCAN', filter, direction: 'forward' };
  const { index } = plan;
  const sortField = plan.sortPrefixFields === null ? null : index.fields[plan.sortPrefixFields - 1];
  // mongod's direction is relative to the key pattern: walking a descending field from its high end is "forward".
  const fieldDirection = sortField === null ? 1 : index.spec.key[sortField];
  const forward = (plan.reverse ? -1 : 1) * fieldDirection === 1;
  const multiKeyPaths: Record<string, string[]> = {};
  index.fields.forEach((f, i) => (multiKeyPaths[f] = index.multikeyFields[i] ? [f] : []));
  const ixscan: Doc = {
    stage: 'IXSCAN',
    keyPattern: { ...index.spec.key },
    indexName: index.spec.name,
    isMultiKey: index.multikey,
    multiKeyPaths,
    isUnique: index.isUnique,
    isSparse: !!index.spec.sparse,
    isPartial: !!index.spec.partialFilterExpression,
    indexVersion: 2,
    direction: forward ? 'forward' : 'backward',
    indexBounds: plan.bounds,
  };
  return { stage: 'FETCH', filter, inputStage: ixscan };
}

function reply(namespace: string, filter: Doc, winningPlan: Doc, run: QueryRun, inner: Doc, ctx: CommandContext, verbosity: string): Doc {
  const out: Doc = {
    explainVersion: '1',
    queryPlanner: {
      namespace,
      indexFilterSet: false,
      parsedQuery: filter,
      maxIndexedOrSolutionsReached: false,
      maxIndexedAndSolutionsReached: false,
      maxScansToExplodeReached: false,
      winningPlan,
      rejectedPlans: [],
    },
  };
  if (verbosity !== 'queryPlanner') out.executionStats = executionStats(run, winningPlan);
  return { ...out, command: { ...inner, $db: ctx.db }, serverInfo: { host: 'localhost', port: 0, version: SERVER_VERSION, gitVersion: 'embedded' }, ok: 1 };
}

function executionStats(run: QueryRun, winningPlan: Doc): Doc {
  return {
    executionSuccess: true,
    nReturned: run.docs.length,
    executionTimeMillis: 0,
    totalKeysExamined: run.keysExamined,
    totalDocsExamined: run.docsExamined,
    executionStages: winningPlan,
    allPlansExecution: [],
  };
}

/**
 * An aggregate's plan: the leading `$match` (and a `$sort` right after it) is the read. A
 * pipeline of only read stages is explained as that read, as mongod does when it pushes the
 * whole pipeline down; otherwise the read is the `$cursor` stage in front of the rest.
 */
function explainAggregate(cmd: Doc, ctx: CommandContext, verbosity: string): Doc {
  const name = collectionName(cmd, 'aggregate');
  const pipeline = Array.isArray(cmd.pipeline) ? (cmd.pipeline.filter(isPlainObject) as Doc[]) : [];
  let i = 0;
  const filter = pipeline[i] && isPlainObject(pipeline[i].$match) ? (pipeline[i++].$match as Doc) : {};
  const sort = pipeline[i] && isPlainObject(pipeline[i].$sort) ? (pipeline[i++].$sort as Doc) : undefined;
  const limit = pipeline[i] && typeof pipeline[i].$limit === 'number' ? (pipeline[i++].$limit as number) : 0;
  const read: ReadShape = { coll: name, filter, sort, skip: 0, limit };
  const rest = pipeline.slice(i);
  const coll = ctx.catalog.get(ctx.db, name);
  const run = execute(coll, read);
  const winningPlan = readStages(run, read);
  const planned = reply(`${ctx.db}.${name}`, filter, winningPlan, run, cmd, ctx, verbosity);
  if (rest.length === 0) return planned;
  const { queryPlanner, executionStats: stats, command, serverInfo } = planned;
  return {
    explainVersion: '1',
    stages: [{ $cursor: { queryPlanner, ...(stats ? { executionStats: stats } : {}) } }, ...rest],
    command,
    serverInfo,
    ok: 1,
  };
}
