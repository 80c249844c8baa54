import t from "tap";
import { createSemaphore } from "../../lib/process/semaphore.js";

// The semaphore the puller's slots and up's start slots share: at most `limit` holders, waiters
// served by priority and then in arrival order, a release that counts once however often it is called.

t.test("at most `limit` at once; waiters served in arrival order; a double release frees one slot", async (t) => {
  const slots = createSemaphore(2);
  const order: string[] = [];
  const first = await slots.acquire();
  const second = await slots.acquire();
  const waiting = ["c", "d"].map((name) => slots.acquire().then((release) => (order.push(name), release)));
  await new Promise((resolve) => setImmediate(resolve));
  t.same(order, [], "both slots are held: nobody else gets one");
  first();
  first();
  const c = await waiting[0]!;
  await new Promise((resolve) => setImmediate(resolve));
  t.same(order, ["c"], "one release, one waiter served, however often it was called");
  second();
  const d = await waiting[1]!;
  t.same(order, ["c", "d"]);
  c();
  d();
});

t.test("run: the slot is released when the function throws", async (t) => {
  const slots = createSemaphore(1);
  await t.rejects(
    slots.run(() => Promise.reject(new Error("boom"))),
    { message: "boom" },
  );
  t.equal(await slots.run(() => Promise.resolve(42)), 42, "the slot is free again");
});

t.test("a waiter of a higher priority is served first; arrival order among equals", async (t) => {
  const slots = createSemaphore(1);
  const held = await slots.acquire();
  const order: string[] = [];
  const waiting = [
    ["a", 0],
    ["b", 2],
    ["c", 0],
    ["d", 2],
    ["e", 1],
  ].map(([name, priority]) =>
    slots.acquire(priority as number).then((release) => (order.push(name as string), release())),
  );
  held();
  await Promise.all(waiting);
  t.same(order, ["b", "d", "e", "a", "c"]);
});
