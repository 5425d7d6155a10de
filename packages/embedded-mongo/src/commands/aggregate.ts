import { Aggregator, ProcessingMode } from 'mingo';
import { sortDocs } from '../collection.js';
import { isPlainObject, numericView, type Doc } from '../documents.js';
import { MongoCommandError } from '../errors.js';
import { explain } from './explain.js';
import { optionalDoc, optionalNumber, refuseUnsupported, requireArray, type CommandHandler } from './context.js';

/**
 * `aggregate`, run by mingo. A leading `$match` uses the collection's indexes. Input documents
 * go through the numeric view, so int64 values aggregate as numbers (and come out as numbers).
 */
export const aggregate: CommandHandler = (cmd, ctx) => {
  if (typeof cmd.aggregate !== 'string') {
    throw new MongoCommandError('InvalidNamespace', 'database-level aggregation ({aggregate: 1}) is not supported by the embedded store');
  }
  const name = cmd.aggregate;
  const pipeline = requireArray(cmd, 'pipeline');
  // The older spelling of explain: an option of aggregate itself, answered at queryPlanner verbosity.
  if (cmd.explain === true) {
    const { explain: _flag, ...inner } = cmd;
    return explain({ explain: inner, verbosity: 'queryPlanner' }, ctx);
  }
  refuseUnsupported(cmd, ['collation', 'explain']);
  for (const stage of pipeline) {
    if (!isPlainObject(stage) || Object.keys(stage).length !== 1) throw new MongoCommandError('BadValue', 'A pipeline stage specification object must contain exactly one field.');
    const op = Object.keys(stage)[0];
    if (op === '$changeStream') throw new MongoCommandError('ChangeStreamNotSupported', 'The $changeStream stage is only supported on replica sets');
    if (op === '$out' || op === '$merge') throw new MongoCommandError('NotImplemented', `${op} is not supported by the embedded store`);
  }
  const cursorOpts = optionalDoc(cmd, 'cursor');
  if (!cursorOpts) throw new MongoCommandError('FailedToParse', "The 'cursor' option is required, except for aggregate with the explain argument");
  const coll = ctx.catalog.get(ctx.db, name);
  let input: Doc[] = [];
  let stages = pipeline as Doc[];
  if (coll) {
    const first = stages[0];
    if (first && isPlainObject(first.$match)) {
      input = coll.find(first.$match);
      stages = stages.slice(1);
    } else {
      input = [...coll.all()];
    }
  }
  // mingo's $count emits {name: 0} for no input; MongoDB's ($group + $project) emits nothing.
  stages = stages.flatMap((s) =>
    typeof s.$count === 'string' ? [{ $group: { _id: null, [s.$count]: { $sum: 1 } } }, { $project: { _id: 0 } }] : [s],
  );
  const options = {
    processingMode: ProcessingMode.CLONE_INPUT,
    collectionResolver: (other: string) => [...(ctx.catalog.get(ctx.db, other)?.all() ?? [])].map(numericView),
  };
  // mingo's $sort orders BSON types its own way (ObjectId after Date; descending arrays not by
  // their largest element), so top-level $sort stages use the store's MongoDB order instead.
  let out = input.map(numericView);
  let segment: Doc[] = [];
  const flush = () => {
    if (segment.length) out = new Aggregator(segment, options).run(out) as Doc[];
    segment = [];
  };
  for (const stage of stages) {
    if (isPlainObject(stage.$sort)) {
      flush();
      out = sortDocs(out, stage.$sort);
    } else segment.push(stage);
  }
  flush();
  return ctx.cursors.first(`${ctx.db}.${name}`, out, optionalNumber(cursorOpts, 'batchSize')) as unknown as Record<string, unknown>;
};
