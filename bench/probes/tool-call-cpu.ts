/**
 * Probe (not a suite): CPU µs and bytes allocated per in-process tool call, ours beside the two floors
 * of the tools suite, in alternating rounds on one process. Prints medians over the rounds.
 *
 *   node --conditions=source --expose-gc --import tsx bench/probes/tool-call-cpu.ts [rounds]
 */
import { bytesAllocatedPerCall, median, round } from "../lib.js";
import { contractFloorCaller, floorCaller, oursCaller } from "../suites/tools.js";

const ROUNDS = Number(process.argv[2] ?? 9);
const ROUND_MS = 300;
const ours = await oursCaller();
const floor = await floorCaller();
const contract = await contractFloorCaller();
await round(ours.call, 1_500, []);
await round(floor.call, 1_500, []);
await round(contract.call, 1_500, []);
const cpu = async (call: () => Promise<void>): Promise<number> => {
  let calls = 0;
  const start = process.cpuUsage();
  await round(() => (calls++, call()), ROUND_MS, []);
  const used = process.cpuUsage(start);
  return (used.user + used.system) / calls;
};
const oursUs: number[] = [];
const floorUs: number[] = [];
const contractUs: number[] = [];
for (let r = 0; r < ROUNDS; r++) {
  oursUs.push(await cpu(ours.call));
  floorUs.push(await cpu(floor.call));
  contractUs.push(await cpu(contract.call));
}
const oursBytes = await bytesAllocatedPerCall(ours.call);
const floorBytes = await bytesAllocatedPerCall(floor.call);
const contractBytes = await bytesAllocatedPerCall(contract.call);
console.log(JSON.stringify({ ours_cpu_us: Number(median(oursUs).toFixed(1)), floor_cpu_us: Number(median(floorUs).toFixed(1)), contract_floor_cpu_us: Number(median(contractUs).toFixed(1)), ratio: Number((median(floorUs) / median(oursUs)).toFixed(3)), contract_ratio: Number((median(contractUs) / median(oursUs)).toFixed(3)), ours_bytes: oursBytes.bytes, floor_bytes: floorBytes.bytes, contract_floor_bytes: contractBytes.bytes }));
await ours.close();
await floor.close();
await contract.close();
