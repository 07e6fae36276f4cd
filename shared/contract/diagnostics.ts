// The endpoints of the diagnostics area: reports from the web application.
import { z } from "zod";
import { CLIENT_ERROR_MAX_BODY_BYTES, ClientErrorReport } from "../diagnostics.ts";
import type { EndpointContract } from "./entry.ts";

export const diagnosticsEndpoints = {
  "report-client-error": {
    summary: "Accepts a tightly bounded client-failure report without authentication",
    area: "diagnostics",
    effect: "additive",
    auth: ["none"],
    // No database and no shared store on this path: the per-IP budget lives in this process.
    database: false,
    rateLimitStore: "in_process",
    maxBodyBytes: CLIENT_ERROR_MAX_BODY_BYTES,
    body: ClientErrorReport,
    result: z.literal(true),
  },
} as const satisfies Record<string, EndpointContract>;
