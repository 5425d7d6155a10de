import { describe, expect, it } from 'vitest';
import { diffCounter, parseMetrics, RPCS, STORE_OPERATIONS } from './diffMetrics.js';

const before = `# HELP store_operation_duration_seconds Latency of MongoDB commands
# TYPE store_operation_duration_seconds histogram
store_operation_duration_seconds_bucket{le="0.001",service="ceremony",operation="find"} 7
store_operation_duration_seconds_sum{service="ceremony",operation="find"} 0.5
store_operation_duration_seconds_count{service="ceremony",operation="find"} 10
store_operation_duration_seconds_count{service="ceremony",operation="insert"} 4
rpc_server_duration_seconds_count{method="passkeyauth.ceremony.v1.CeremonyService/StartLogin",code="ok",service="ceremony"} 5
`;

const after = `store_operation_duration_seconds_count{operation="find",service="ceremony"} 25
store_operation_duration_seconds_count{service="ceremony",operation="insert"} 9
store_operation_duration_seconds_count{service="ceremony",operation="findAndModify"} 3
rpc_server_duration_seconds_count{method="passkeyauth.ceremony.v1.CeremonyService/StartLogin",code="ok",service="ceremony"} 8
rpc_server_duration_seconds_count{method="passkeyauth.ceremony.v1.CeremonyService/StartLogin",code="not_found",service="ceremony"} 1
process_cpu_seconds_total{service="ceremony"} 12.5
`;

describe('parseMetrics', () => {
  it('reads names, labels and values and skips comments', () => {
    const samples = parseMetrics(before);
    expect(samples).toHaveLength(5);
    expect(samples[0]).toEqual({ name: 'store_operation_duration_seconds_bucket', labels: { le: '0.001', service: 'ceremony', operation: 'find' }, value: 7 });
  });

  it('unescapes label values and reads unlabelled samples with a timestamp', () => {
    const [a, b] = parseMetrics('m{x="a\\"b\\\\c"} 1\nup 3 1700000000000\n');
    expect(a.labels.x).toBe('a"b\\c');
    expect(b).toEqual({ name: 'up', labels: {}, value: 3 });
  });
});

describe('diffCounter', () => {
  it('sums the growth per label value; label order does not matter; new series count from 0', () => {
    const d = diffCounter(parseMetrics(before), parseMetrics(after), STORE_OPERATIONS, 'operation');
    expect(d).toEqual({ total: 23, by: { find: 15, insert: 5, findAndModify: 3 }, reset: false });
  });

  it('adds up the result codes of one RPC method', () => {
    const d = diffCounter(parseMetrics(before), parseMetrics(after), RPCS, 'method');
    expect(d.by).toEqual({ 'passkeyauth.ceremony.v1.CeremonyService/StartLogin': 4 });
  });

  it('flags a counter that went backwards (a restarted process)', () => {
    const d = diffCounter(parseMetrics(after), parseMetrics(before), STORE_OPERATIONS, 'operation');
    expect(d.reset).toBe(true);
  });
});
