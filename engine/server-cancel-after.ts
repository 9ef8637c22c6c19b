// engine.v1's dead-man's switch (docs/risk.md, "Cancel-after"): SetCancelAfter, a journaled command of the
// account's shard, and GetCancelAfter, a query; both answer the switch as it then stands.
import { unary, type UnaryOptions } from "../kernel/grpc.js";
import type { CancelAfter } from "../proto/gen/engine/v1/CancelAfter.js";
import type { EngineHandlers } from "../proto/gen/engine/v1/Engine.js";
import type { CancelAfterRecord } from "./basics/cancel-after.js";
import { accountIdOf, message, unwrap, type AccountCalls } from "./server-wire.js";

type CancelAfterHandlers = Pick<EngineHandlers, "SetCancelAfter" | "GetCancelAfter">;

function cancelAfterMessage(record: CancelAfterRecord): CancelAfter {
  return message(record);
}

export function cancelAfterHandlers(calls: AccountCalls, options: UnaryOptions): CancelAfterHandlers {
  return {
    SetCancelAfter: unary(
      "SetCancelAfter",
      async (r) => {
        const reply = unwrap(
          await calls.command(r.user_id, r.account_id, {
            type: "SetCancelAfter",
            request: { account_id: accountIdOf(r.account_id), timeout_ms: r.timeout_ms },
          }),
        );
        if (!("cancel_after" in reply)) throw new Error("not a cancel-after reply");
        return cancelAfterMessage(reply.cancel_after);
      },
      options,
    ),
    GetCancelAfter: unary(
      "GetCancelAfter",
      async (r) =>
        cancelAfterMessage(await calls.query<CancelAfterRecord>(r.user_id, r.account_id, { type: "cancel_after" })),
      options,
    ),
  };
}
