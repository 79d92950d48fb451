/** ProgramOrder alone: when each request of a connection takes effect. */
import { describe, expect, it } from "vitest";
import { ProgramOrder } from "../src/program-order.js";

function deferred<T = void>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

const flushMicrotasks = () => new Promise<void>((r) => setImmediate(r));

describe("ProgramOrder", () => {
  it("runs pipelined writes at once, so they can share a commit", () => {
    const order = new ProgramOrder();
    const ran: string[] = [];
    for (const name of ["w1", "w2", "w3"]) order.run("write", () => (ran.push(name), deferred().promise));
    expect(ran).toEqual(["w1", "w2", "w3"]);
    expect(order.backlog).toBe(0);
  });

  it("holds a read until every earlier write settled, and what follows the read behind it", async () => {
    const order = new ProgramOrder();
    const ran: string[] = [];
    const w1 = deferred();
    const w2 = deferred();
    order.run("write", () => (ran.push("w1"), w1.promise));
    order.run("write", () => (ran.push("w2"), w2.promise));
    const read = order.run("read", () => (ran.push("r1"), "read result"));
    order.run("write", () => (ran.push("w3"), deferred().promise));
    expect(ran).toEqual(["w1", "w2"]);
    expect(order.backlog).toBe(2);
    w1.resolve();
    await flushMicrotasks();
    expect(ran).toEqual(["w1", "w2"]);
    // A failed write counts as settled: the read goes on.
    w2.reject(new Error("refused"));
    await flushMicrotasks();
    expect(ran).toEqual(["w1", "w2", "r1", "w3"]);
    await expect(read).resolves.toBe("read result");
    expect(order.backlog).toBe(0);
  });

  it("holds a write until an earlier asynchronous read finished, so the read cannot see it", async () => {
    const order = new ProgramOrder();
    const ran: string[] = [];
    const r1 = deferred<string>();
    const read = order.run("read", () => (ran.push("r1"), r1.promise));
    order.run("write", () => (ran.push("w1"), deferred().promise));
    order.run("read", () => (ran.push("r2"), "second read"));
    expect(ran).toEqual(["r1"]);
    expect(order.backlog).toBe(2);
    r1.resolve("first read");
    await flushMicrotasks();
    // The write runs once the read is done; the read after it waits for the write.
    expect(ran).toEqual(["r1", "w1"]);
    await expect(read).resolves.toBe("first read");
  });

  it("runs a read at once when no write is unsettled, and a synchronous write counts as settled", () => {
    const order = new ProgramOrder();
    expect(order.run("write", () => 1)).toBe(1);
    expect(order.run("read", () => 2)).toBe(2);
  });

  it("delivers a waiting request's throw as a rejection, and keeps going", async () => {
    const order = new ProgramOrder();
    const w = deferred();
    order.run("write", () => w.promise);
    const failing = order.run("read", () => {
      throw new Error("refused read");
    });
    const next = order.run("write", () => "queued after");
    w.resolve();
    await expect(failing).rejects.toThrow("refused read");
    await expect(next).resolves.toBe("queued after");
  });
});
