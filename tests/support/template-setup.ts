import crypto from "node:crypto";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    /** Where this run keeps its migrated PGlite template (a private folder, removed at the end). */
    templateDir: string;
    /** This run's migrated PostgreSQL template database, made by the first test that needs it. */
    postgresTemplate: string;
  }
}

/**
 * Global setup of every project: a migrated database is made once per run and copied for each
 * test, instead of once per test file (vitest runs each file in a fresh process, so a
 * module-level cache would not outlive a file). Teardown removes both templates.
 */
export default async function setup(project: TestProject) {
  const templateDir = await fs.mkdtemp(path.join(os.tmpdir(), "naijalink-templates-"));
  const postgresTemplate = `naijalink_template_${crypto.randomBytes(6).toString("hex")}`;
  project.provide("templateDir", templateDir);
  project.provide("postgresTemplate", postgresTemplate);
  return async () => {
    await fs.rm(templateDir, { recursive: true, force: true });
    const serverUrl = process.env.TEST_DATABASE_URL;
    if (!serverUrl) return;
    const admin = new pg.Client({ connectionString: serverUrl });
    await admin.connect();
    try {
      await admin.query(`drop database if exists ${postgresTemplate} with (force)`);
    } finally {
      await admin.end();
    }
  };
}
