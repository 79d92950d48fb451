/**
 * Load generator for the app-server suite, run as a child process: 10 device connections write
 * envelopes into their own sessions (16 in flight each) while 10 agent connections follow one
 * session each; prints {"rate": delivered events per second, "delivered", "cpu_us": this process's CPU time,
 * "start"/"end": the window's wall-clock bounds} for the measured window.
 */
import { Client, key, messageEnvelope } from "./client.js";

/** One measured window of the fan-out path; returns delivered events per second. */
async function fanOutRound(url: string, deviceToken: string, agentToken: string, round: number, windowMs: number): Promise<{ rate: number; delivered: number; cpu_us: number; start: number; end: number }> {
  const writers = 10;
  const inFlight = 16;
  const devices = await Promise.all(Array.from({ length: writers }, () => Client.open(url, deviceToken)));
  const agents = await Promise.all(Array.from({ length: writers }, () => Client.open(url, agentToken)));
  let delivered = 0;
  let counting = false;
  const sessions = devices.map((_, i) => `bench-r${round}-s${i}`);
  await Promise.all(devices.map((d, i) => d.call("agentSession/start", { idempotency_key: key(), session_id: sessions[i], app_scope: "chat", workspace_id: "w", agent_id: "demo-agent" })));
  agents.forEach((a) => {
    a.onNotification = (f) => {
      if (counting && f.method === "agentSession/event") delivered++;
    };
  });
  await Promise.all(agents.map((a, i) => a.call("agentSession/subscribe", { session_id: sessions[i], after_seq: 1 })));
  let stop = false;
  const writer = async (device: Client, sessionId: string): Promise<void> => {
    let n = 0;
    const lane = async (): Promise<void> => {
      while (!stop) await device.call("agentSession/envelope/send", { session_id: sessionId, idempotency_key: key(), envelope: messageEnvelope(sessionId, ++n) });
    };
    await Promise.all(Array.from({ length: inFlight }, lane));
  };
  const running = devices.map((d, i) => writer(d, sessions[i]!));
  await new Promise((r) => setTimeout(r, 300)); // warm-up
  counting = true;
  const start = performance.now();
  const wallStart = Date.now();
  const cpuStart = process.cpuUsage();
  await new Promise((r) => setTimeout(r, windowMs));
  const rate = (delivered * 1000) / (performance.now() - start);
  counting = false;
  const cpu = process.cpuUsage(cpuStart);
  const window = { delivered, cpu_us: cpu.user + cpu.system, start: wallStart, end: Date.now() };
  stop = true;
  await Promise.all(running);
  for (const c of [...devices, ...agents]) c.close();
  return { rate, ...window };
}


const [url, deviceToken, agentToken, round, windowMs] = process.argv.slice(2);
const measured = await fanOutRound(url!, deviceToken!, agentToken!, Number(round), Number(windowMs));
process.stdout.write(JSON.stringify(measured));
process.exit(0);
