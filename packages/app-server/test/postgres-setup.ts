/**
 * Global setup of the `app-server-postgres` test project: one throwaway PostgreSQL cluster for the
 * run; each test server gets a database of its own on it (helpers.ts).
 */
import type { TestProject } from "vitest/node";
import { startPostgresCluster } from "../../../test/support/postgres.js";

declare module "vitest" {
  export interface ProvidedContext {
    /** A superuser's URL on the test cluster. */
    postgresUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const cluster = await startPostgresCluster({ durable: false });
  project.provide("postgresUrl", cluster.url());
  return () => cluster.stop();
}
