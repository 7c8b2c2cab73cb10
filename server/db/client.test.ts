import { PGlite } from "@electric-sql/pglite";
import { afterAll, describe, expect, it } from "vitest";
import { PGliteTakingTurns } from "./client.ts";

/** Whether a callback queued for the event loop just before the statement ran before it was answered. */
async function loopRanBeforeAnswer(client: PGlite): Promise<boolean> {
  let ran = false;
  setImmediate(() => (ran = true));
  await client.query("select 1");
  return ran;
}

describe("PGliteTakingTurns", () => {
  const plain = new PGlite();
  const takingTurns = new PGliteTakingTurns();
  afterAll(async () => {
    await plain.close();
    await takingTurns.close();
  });

  it("lets the event loop run before each statement, which plain PGlite answers within the task", async () => {
    await Promise.all([plain.waitReady, takingTurns.waitReady]);
    expect(await loopRanBeforeAnswer(plain)).toBe(false);
    expect(await loopRanBeforeAnswer(takingTurns)).toBe(true);
    let ran = false;
    setImmediate(() => (ran = true));
    const seen = await takingTurns.transaction(async (tx) => {
      await tx.query("select 1");
      return ran;
    });
    expect(seen).toBe(true);
  });
});
