import { describe, expect, it } from "vitest";
import { createBatcher } from "./batching.ts";

function recordingBatcher(options: { maxBatchSize: number; maxConcurrentBatches: number; delayMs?: number }) {
  const batches: number[][] = [];
  let running = 0;
  let mostAtOnce = 0;
  const call = createBatcher<number, number>({
    ...options,
    run: async (inputs) => {
      batches.push(inputs);
      running += 1;
      mostAtOnce = Math.max(mostAtOnce, running);
      await new Promise((resolve) => setTimeout(resolve, options.delayMs ?? 5));
      running -= 1;
      return inputs.map((input) =>
        input < 0
          ? { status: "rejected", reason: new Error(`negative ${input}`) }
          : { status: "fulfilled", value: input * 10 },
      );
    },
  });
  return { call, batches, mostAtOnce: () => mostAtOnce };
}

describe("createBatcher", () => {
  it("hands calls made together to one run, in arrival order, and answers each its own result", async () => {
    const { call, batches } = recordingBatcher({ maxBatchSize: 100, maxConcurrentBatches: 1 });
    const results = await Promise.all([1, 2, 3, 4].map(call));
    expect(results).toEqual([10, 20, 30, 40]);
    expect(batches).toEqual([[1, 2, 3, 4]]);
  });

  it("runs a lone call on its own", async () => {
    const { call, batches } = recordingBatcher({ maxBatchSize: 100, maxConcurrentBatches: 1 });
    expect(await call(7)).toBe(70);
    expect(batches).toEqual([[7]]);
  });

  it("groups the calls that arrive while a batch runs into the next one", async () => {
    const { call, batches } = recordingBatcher({ maxBatchSize: 100, maxConcurrentBatches: 1, delayMs: 30 });
    const first = call(1);
    await new Promise((resolve) => setTimeout(resolve, 5)); // the first batch is running now
    const later = [2, 3, 4].map(call);
    expect(await Promise.all([first, ...later])).toEqual([10, 20, 30, 40]);
    expect(batches).toEqual([[1], [2, 3, 4]]);
  });

  it("splits at the batch size and runs no more batches at once than allowed", async () => {
    const { call, batches, mostAtOnce } = recordingBatcher({ maxBatchSize: 3, maxConcurrentBatches: 2 });
    const inputs = Array.from({ length: 10 }, (_, index) => index);
    expect(await Promise.all(inputs.map(call))).toEqual(inputs.map((input) => input * 10));
    expect(batches.map((batch) => batch.length)).toEqual([3, 3, 3, 1]);
    expect(batches.flat()).toEqual(inputs);
    expect(mostAtOnce()).toBe(2);
  });

  it("fails only the call whose result is rejected", async () => {
    const { call } = recordingBatcher({ maxBatchSize: 100, maxConcurrentBatches: 1 });
    const results = await Promise.allSettled([1, -2, 3].map(call));
    expect(results).toEqual([
      { status: "fulfilled", value: 10 },
      { status: "rejected", reason: new Error("negative -2") },
      { status: "fulfilled", value: 30 },
    ]);
  });

  it("fails every call of a batch whose run throws, and keeps serving later calls", async () => {
    let fail = true;
    const call = createBatcher<number, number>({
      maxBatchSize: 100,
      maxConcurrentBatches: 1,
      run: async (inputs) => {
        if (fail) throw new Error("database unavailable");
        return inputs.map((input) => ({ status: "fulfilled", value: input }));
      },
    });
    const failed = await Promise.allSettled([1, 2].map(call));
    expect(failed.map((result) => result.status)).toEqual(["rejected", "rejected"]);
    fail = false;
    expect(await call(3)).toBe(3);
  });

  it("fails the batch when the run answers the wrong number of results", async () => {
    const call = createBatcher<number, number>({
      maxBatchSize: 100,
      maxConcurrentBatches: 1,
      run: async () => [{ status: "fulfilled", value: 1 }],
    });
    await expect(Promise.all([call(1), call(2)])).rejects.toThrow("A batch of 2 was answered with 1 results");
  });
});
