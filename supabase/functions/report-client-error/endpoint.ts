import { diagnosticsEndpoints } from "@shared/contract/diagnostics.ts";
import { CLIENT_ERROR_LOG_LIMIT } from "@shared/diagnostics.ts";
import { endpoint } from "../_shared/endpoint.ts";
import { CappedLog } from "../_shared/intake/capped_log.ts";

// One per process: the spec caps report logging per isolate, not per request.
const reports = new CappedLog({
  event: "client_error",
  droppedEvent: "client_error_reports_dropped",
  limit: CLIENT_ERROR_LOG_LIMIT,
});

export const handler = endpoint(diagnosticsEndpoints, "report-client-error", {
  run: ({ body }) => {
    // Reports over the log cap are still accepted: the client cannot act on our log volume.
    reports.write({
      code: body.code,
      surface: body.surface,
      release: body.release,
      trace_id: body.trace_id,
    });
    return Promise.resolve(true as const);
  },
});
