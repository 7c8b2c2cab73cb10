/**
 * Group commit: calls that arrive while earlier work is running (or in the same turn of the
 * event loop) are handed to `run` together, so under load many requests share one query or
 * one transaction instead of queueing for the database one by one. A lone call waits only for
 * the current turn of the event loop to end.
 *
 * `run` receives the inputs in arrival order and answers one settled result per input, in
 * the same order; if it throws, every call of that batch fails with its error.
 */
export function createBatcher<Input, Output>(options: {
  run: (inputs: Input[]) => Promise<PromiseSettledResult<Output>[]>;
  maxBatchSize: number;
  maxConcurrentBatches: number;
}): (input: Input) => Promise<Output> {
  interface Waiting {
    input: Input;
    resolve: (value: Output) => void;
    reject: (reason: unknown) => void;
  }
  const queue: Waiting[] = [];
  let runningBatches = 0;
  let flushScheduled = false;

  const scheduleFlush = () => {
    if (flushScheduled || queue.length === 0 || runningBatches >= options.maxConcurrentBatches) return;
    flushScheduled = true;
    setImmediate(flush);
  };

  const flush = () => {
    flushScheduled = false;
    while (queue.length > 0 && runningBatches < options.maxConcurrentBatches) {
      const batch = queue.splice(0, options.maxBatchSize);
      runningBatches += 1;
      void runBatch(batch).finally(() => {
        runningBatches -= 1;
        scheduleFlush();
      });
    }
  };

  const runBatch = async (batch: Waiting[]) => {
    try {
      const results = await options.run(batch.map((waiting) => waiting.input));
      if (results.length !== batch.length)
        throw new Error(`A batch of ${batch.length} was answered with ${results.length} results`);
      batch.forEach((waiting, index) => {
        const result = results[index]!;
        if (result.status === "fulfilled") waiting.resolve(result.value);
        else waiting.reject(result.reason);
      });
    } catch (error) {
      for (const waiting of batch) waiting.reject(error);
    }
  };

  return (input) =>
    new Promise<Output>((resolve, reject) => {
      queue.push({ input, resolve, reject });
      scheduleFlush();
    });
}

/** One batcher per owner object (e.g. per app's services), created on first use. */
export function batcherPerOwner<Owner extends object, Input, Output>(
  create: (owner: Owner) => (input: Input) => Promise<Output>,
): (owner: Owner) => (input: Input) => Promise<Output> {
  const batchers = new WeakMap<Owner, (input: Input) => Promise<Output>>();
  return (owner) => {
    let batcher = batchers.get(owner);
    if (!batcher) {
      batcher = create(owner);
      batchers.set(owner, batcher);
    }
    return batcher;
  };
}
