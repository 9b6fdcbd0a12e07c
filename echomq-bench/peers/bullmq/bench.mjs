// The BullMQ side of `emq bench queue`, run by the Java driver with node on the same Redis.
// It measures what the driver measures for EchoMQ, the same way:
//   1. bulk enqueue: --jobs jobs of {"i":n} with Queue.addBulk, --batch per call, one call at a time;
//   2. Redis bytes per waiting job: INFO memory used_memory before and after step 1, over --jobs;
//   3. no-op processing: one Worker at --concurrency drains those jobs; jobs per second.
// For 1 and 3 it also gives the CPU per job: this process's (process.cpuUsage(), user + system)
// as client_cpu_us_per_job, and the server's (INFO cpu used_cpu_sys + used_cpu_user) as
// server_cpu_us_per_job, each a delta over the phase divided by its jobs; and this process's context
// switches (process.resourceUsage(), voluntary + involuntary, every thread of the process) as
// client_switches_per_job.
// A warm-up round of a fifth of the jobs runs first on its own queue. Every figure is printed as
//   RESULT peer=bullmq bench=<name> key=value ...
// on stdout; progress goes to stderr. Every key it made is deleted at the end (Queue.obliterate).
//
//   node bench.mjs --redis redis://127.0.0.1:6379 --jobs 100000 --batch 1000 --concurrency 50 --queue q
import { Queue, Worker } from 'bullmq';
import IORedis from 'ioredis';
import { readFileSync } from 'node:fs';

function options(argv) {
  const o = { redis: null, jobs: 100000, batch: 1000, concurrency: 50, queue: 'emq-bench-bullmq' };
  for (let i = 0; i < argv.length; i += 2) {
    const name = argv[i];
    const value = argv[i + 1];
    if (value === undefined) throw new Error(`option ${name} needs a value`);
    switch (name) {
      case '--redis': o.redis = value; break;
      case '--queue': o.queue = value; break;
      case '--jobs': case '--batch': case '--concurrency': {
        const n = Number.parseInt(value, 10);
        if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a positive integer, was ${value}`);
        o[name.slice(2)] = n;
        break;
      }
      default: throw new Error(`unknown option ${name}`);
    }
  }
  if (!o.redis || !/^rediss?:\/\//.test(o.redis)) throw new Error('--redis redis://host:port is required');
  return o;
}

function result(fields) {
  console.log('RESULT ' + Object.entries({ peer: 'bullmq', ...fields }).map(([k, v]) => `${k}=${v}`).join(' '));
}

async function usedMemory(redis) {
  const info = await redis.info('memory');
  return Number(/^used_memory:(\d+)/m.exec(info)[1]);
}

async function serverCpuMicros(redis) {
  const info = await redis.info('cpu');
  const field = (name) => Number(new RegExp(`^${name}:([0-9.]+)`, 'm').exec(info)[1]);
  return (field('used_cpu_sys') + field('used_cpu_user')) * 1e6;
}

// The process's context switches so far, voluntary and involuntary, over all its threads (getrusage).
function contextSwitches() {
  const r = process.resourceUsage();
  return r.voluntaryContextSwitches + r.involuntaryContextSwitches;
}

// Starts a phase's CPU readings; the function it returns gives the figures per job.
async function cpuMeter(redis) {
  const server = await serverCpuMicros(redis);
  const client = process.cpuUsage();
  const switches = contextSwitches();
  return async (jobs) => {
    const used = process.cpuUsage(client);
    const switched = contextSwitches() - switches;
    const serverNow = await serverCpuMicros(redis);
    return { client_cpu_us_per_job: ((used.user + used.system) / jobs).toFixed(2),
      server_cpu_us_per_job: ((serverNow - server) / jobs).toFixed(2),
      client_switches_per_job: (switched / jobs).toFixed(3) };
  };
}

async function enqueue(queue, jobs, batch) {
  const start = process.hrtime.bigint();
  for (let from = 0; from < jobs; from += batch) {
    const bulk = [];
    for (let i = from; i < Math.min(jobs, from + batch); i++) bulk.push({ name: 'noop', data: { i } });
    await queue.addBulk(bulk);
  }
  return Number(process.hrtime.bigint() - start) / 1e9;
}

async function drain(name, connection, jobs, concurrency, redis) {
  let done = 0;
  const stop = await cpuMeter(redis);
  const start = process.hrtime.bigint();
  let worker;
  await new Promise((resolve, reject) => {
    worker = new Worker(name, async () => {}, { connection, concurrency });
    worker.on('completed', () => { if (++done === jobs) resolve(); });
    worker.on('error', reject);
  });
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  const cpu = await stop(jobs);
  await worker.close();
  return { seconds, cpu };
}

async function main() {
  const o = options(process.argv.slice(2));
  const pkg = JSON.parse(readFileSync(new URL('./node_modules/bullmq/package.json', import.meta.url)));
  result({ bench: 'version', version: pkg.version, node: process.versions.node });
  const connection = { url: o.redis, maxRetriesPerRequest: null };
  const redis = new IORedis(o.redis, { maxRetriesPerRequest: null });

  const warmJobs = Math.max(1, Math.floor(o.jobs / 5));
  console.error(`bullmq-peer: warm-up round of ${warmJobs} jobs…`);
  const warm = new Queue(o.queue + '-warm', { connection });
  await enqueue(warm, warmJobs, o.batch);
  await drain(o.queue + '-warm', connection, warmJobs, o.concurrency, redis);
  await warm.obliterate({ force: true });
  await warm.close();

  console.error(`bullmq-peer: addBulk of ${o.jobs} jobs…`);
  const queue = new Queue(o.queue, { connection });
  await queue.waitUntilReady();
  const before = await usedMemory(redis);
  const stopEnqueue = await cpuMeter(redis);
  const enqueueSeconds = await enqueue(queue, o.jobs, o.batch);
  const enqueueCpu = await stopEnqueue(o.jobs);
  const after = await usedMemory(redis);
  result({ bench: 'enqueue', jobs: o.jobs, seconds: enqueueSeconds.toFixed(3),
    per_s: (o.jobs / enqueueSeconds).toFixed(1), bytes_per_job: ((after - before) / o.jobs).toFixed(1),
    ...enqueueCpu });

  console.error(`bullmq-peer: one worker at concurrency ${o.concurrency} drains them…`);
  const drained = await drain(o.queue, connection, o.jobs, o.concurrency, redis);
  result({ bench: 'process', jobs: o.jobs, seconds: drained.seconds.toFixed(3),
    per_s: (o.jobs / drained.seconds).toFixed(1), ...drained.cpu });

  await queue.obliterate({ force: true });
  await queue.close();
  await redis.quit();
}

main().catch((e) => {
  console.error(`bullmq-peer: failed: ${e && e.stack ? e.stack : e}`);
  process.exit(3);
});
