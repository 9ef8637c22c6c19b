// Generated from docs/openapi.yaml by openapi-typescript (client/src/generate.ts). Do not edit:
// run `npm run generate -w client` after changing the document.

export interface paths {
    "/api/api-keys": {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description Your id for this request, echoed in the `X-Request-Id` response header and written to the
                 *     gateway's logs. A value outside 1 to 128 printable ASCII characters is replaced by a fresh UUID.
                 */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path?: never;
            cookie?: never;
        };
        /**
         * List the caller's active keys
         * @description The caller's active keys (neither revoked nor expired), oldest first. Never a key, a secret or a
         *     hash. Absent optional values are `null`, never missing.
         */
        get: operations["listApiKeys"];
        put?: never;
        /**
         * Create a key
         * @description Creates an active key for the user named by `X-User-Id`. `key` and `secret` (and `webhookSecret`
         *     when a `webhookUrl` was given) appear in this response only: store them now. A lost secret cannot
         *     be recovered; revoke the key and create a new one.
         *
         *     Limits: at most 10 active keys per user (revoked and expired keys do not count), also under
         *     concurrent creation. `label` is trimmed and must hold 1 to 100 characters; `ipWhitelist` takes at
         *     most 100 IPv4/IPv6 addresses or CIDR ranges (duplicates collapsed; empty or absent allows every
         *     address); `webhookUrl` must be `https://` with a host, without credentials or fragment, at most
         *     2048 characters; `expiresAt` must carry a time zone and lie in the future.
         */
        post: operations["createApiKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/api-keys/{id}": {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description Your id for this request, echoed in the `X-Request-Id` response header and written to the
                 *     gateway's logs. A value outside 1 to 128 printable ASCII characters is replaced by a fresh UUID.
                 */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                /** @description The key's `id` (a UUID). Any other value is `404`. */
                id: string;
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Revoke a key
         * @description Revokes one of the caller's keys, immediately and for good. When this returns, the next `/v1`
         *     request with the key gets `401` on every gateway replica, and the key no longer counts toward the
         *     limit of 10.
         */
        delete: operations["revokeApiKey"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/api-keys/validate": {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description Your id for this request, echoed in the `X-Request-Id` response header and written to the
                 *     gateway's logs. A value outside 1 to 128 printable ASCII characters is replaced by a fresh UUID.
                 */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Validate a key and secret
         * @description The check the gateway makes for every `/v1` request, for services that authenticate keys
         *     themselves. Needs no `X-User-Id` (the caller is a service), but needs the admin token when
         *     `WALLET_ADMIN_TOKEN` is set. Checks, in order: key and secret (`401`), expiry (`401`), source IP
         *     against `ipWhitelist` (`403`, IPv4-mapped IPv6 `::ffff:a.b.c.d` matches `a.b.c.d`), then the scope
         *     (`403`, `required_scope` naming the `permission` asked for) when `permission` is given. Any scope grants
         *     `READ_ONLY`; `TRADE` is granted by `TRADE` or `MANAGE_ORDERS`; `MANAGE_ORDERS` only by itself.
         */
        post: operations["validateApiKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/api-keys/{id}/deliveries": {
        parameters: {
            query?: {
                /** @description The most deliveries to return, a whole number from 1 to 200. Anything else is `400`. */
                limit?: number;
                /**
                 * @description The `deliveryId` of the last delivery of the previous page: the page goes on after it. Anything but the
                 *     id of one of this key's deliveries is `400`.
                 */
                before?: string;
            };
            header?: {
                /**
                 * @description Your id for this request, echoed in the `X-Request-Id` response header and written to the
                 *     gateway's logs. A value outside 1 to 128 printable ASCII characters is replaced by a fresh UUID.
                 */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                /** @description The key's `id` (a UUID), one of the caller's active keys. Any other value is `404`. */
                id: components["parameters"]["KeyId"];
            };
            cookie?: never;
        };
        /**
         * A key's webhook delivery log
         * @description The deliveries of events to this key's `webhookUrl`, newest first (by `createdAt`, then `deliveryId`), each
         *     with every attempt made. At most `limit` of them; `hasMore` is `true` when there are more: ask again with
         *     `before` set to the last one's `deliveryId`. A delivery is created for each event of the user's accounts
         *     while the key is active and has a webhook (a key without one has none), and deleted with its event past
         *     retention (`WEBHOOK_RETENTION_DAYS`). An unknown query parameter or a bad `limit` or `before` is `400`.
         *
         *     The key must be one of the caller's active keys; another user's, an unknown, a revoked or an expired key
         *     is `404`.
         */
        get: operations["listDeliveries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/api-keys/{id}/deliveries/{delivery_id}/redeliver": {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description Your id for this request, echoed in the `X-Request-Id` response header and written to the
                 *     gateway's logs. A value outside 1 to 128 printable ASCII characters is replaced by a fresh UUID.
                 */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                /** @description The key's `id` (a UUID), one of the caller's active keys. Any other value is `404`. */
                id: components["parameters"]["KeyId"];
                /** @description The delivery's `deliveryId` (a UUID), one of this key's. Any other value is `404`. */
                delivery_id: string;
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send a delivery again
         * @description Makes the delivery due now, whatever its status (`succeeded`, `failed`, `disabled`, `canceled` or still
         *     `pending`): the dispatcher attempts it again within a moment, with the same event and `webhook-id`, to
         *     the URL it was created for. `attempts` and the attempt log go on counting; when the new attempt fails,
         *     the delivery is retried on what remains of the retry schedule, or is `failed` again when nothing does.
         *     Takes no body. If the key's webhook has been disabled since, the delivery ends `canceled` without an
         *     attempt.
         *
         *     The key must be one of the caller's active keys, and the delivery one of that key's; anything else is
         *     `404`.
         */
        post: operations["redeliver"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/tickers": {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description Your id for this request, echoed in the `X-Request-Id` response header and written to the
                 *     gateway's logs. A value outside 1 to 128 printable ASCII characters is replaced by a fresh UUID.
                 */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path?: never;
            cookie?: never;
        };
        /**
         * List the tradable symbols
         * @description Every tradable symbol (at least 20, over crypto, forex, commodities and indices), with its venues,
         *     maximum leverage, size grid and the current mark and index prices. GMX lists crypto only, OSTIUM
         *     all four asset classes. Prices are `null` while a symbol has no price yet (`PRICE_FEED=push` before
         *     the first push). `market_open` is evaluated at the time of the request.
         *
         *     Freshness: the gateway answers from its copy of the engine's tickers, kept current by an engine
         *     stream (docs/engine.md, "Catalogue reads"): a price change shows here as soon as the stream carries it
         *     to the gateway (typically within milliseconds of the engine applying it; a client that just pushed a
         *     price reads until it shows). The copy is never more than 5 s behind: while the gateway starts, while
         *     the stream reopens after an engine restart, and when the engine has not been heard from for 5 s, the
         *     gateway asks the engine instead (same answer, same errors, including `503 engine_unavailable`).
         *
         *     Scope: any (`READ_ONLY` or higher). Counts against the key's rate limit.
         */
        get: operations["listTickers"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/plans": {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description Your id for this request, echoed in the `X-Request-Id` response header and written to the
                 *     gateway's logs. A value outside 1 to 128 printable ASCII characters is replaced by a fresh UUID.
                 */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path?: never;
            cookie?: never;
        };
        /**
         * List the challenge plans
         * @description The plans an account can be opened on: starting balance, profit target, drawdown and daily loss
         *     limits (percent of the starting balance; `5` means 5%), leverage caps per asset class, exposure
         *     caps in USD, the news freeze window and the venues allowed. Daily limits reset at `00:00Z`.
         *     `rules_version` names the rule set a plan is enforced with.
         *
         *     Freshness: the plans are the engine's configuration; the gateway answers from its copy, taken when its
         *     engine stream opens (docs/engine.md, "Catalogue reads"), and asks the engine while it has none.
         *
         *     Scope: any (`READ_ONLY` or higher). Counts against the key's rate limit.
         */
        get: operations["listPlans"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/calendar": {
        parameters: {
            query?: {
                /** @description Inclusive lower bound on `scheduled_at`, an ISO 8601 date-time with a time zone. Absent means unbounded. */
                from?: string;
                /** @description Inclusive upper bound on `scheduled_at`. Absent means unbounded. */
                to?: string;
                /** @description Only events that concern this symbol, named directly or through its asset class (`BTCUSD`, `btc-usd` and `BTC-USD` are the same). */
                symbol?: string;
            };
            header?: {
                /**
                 * @description Your id for this request, echoed in the `X-Request-Id` response header and written to the
                 *     gateway's logs. A value outside 1 to 128 printable ASCII characters is replaced by a fresh UUID.
                 */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path?: never;
            cookie?: never;
        };
        /**
         * The high-impact news calendar
         * @description The scheduled events the `news_freeze` rule reads, in time order (ties by `id`). Each event names the
         *     symbols and asset classes it affects. While an event's window is open (from the plan's
         *     `news_freeze.minutes_before` before `scheduled_at` to `minutes_after` after it), orders that would
         *     add exposure in an affected symbol are rejected with the violation `news_freeze`; reduce-only orders
         *     and closes are not. The engine ships a calendar; internal services replace it through market.v1
         *     `SetCalendar`, and the last one set survives restarts. An unknown query parameter, a bad `from`/`to`,
         *     `from` after `to`, or an unknown `symbol` is `400`.
         *
         *     Freshness: the gateway answers from its copy of the calendar, filtered and validated by the engine's
         *     own code, kept current by an engine stream (docs/engine.md, "Catalogue reads"): a calendar set through
         *     `SetCalendar` shows here as soon as the stream carries it to the gateway (typically within
         *     milliseconds). The copy is never more than 5 s behind: while it has none or has not heard from the
         *     engine for 5 s, the gateway asks the engine instead (same answer, same errors).
         *
         *     Scope: any (`READ_ONLY` or higher). Counts against the key's rate limit.
         */
        get: operations["getCalendar"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/account": {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description Your id for this request, echoed in the `X-Request-Id` response header and written to the
                 *     gateway's logs. A value outside 1 to 128 printable ASCII characters is replaced by a fresh UUID.
                 */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Open a trading account on a plan
         * @description Opens a funded account on one of the plans of `GET /v1/plans`, owned by the key's user. It starts
         *     `ACTIVE` with the plan's starting balance; `default_venue` defaults to the first venue the plan allows.
         *     The plan is copied into the account (`rules_version` names the rule set it is enforced with), so a
         *     later change to the catalogue does not touch it. An unknown `plan_id`, or a `default_venue` the plan
         *     does not allow, is `400`. Not idempotent: every `201` is a new account.
         *
         *     A user holds at most 100 accounts (`ENGINE_MAX_ACCOUNTS_PER_USER`; accounts of every state count):
         *     one more is `409 account_limit_reached` with the `limit`. The count holds under concurrency: of two
         *     creations racing for the last place, exactly one gets it.
         *
         *     Scope: `TRADE` (granted by `TRADE` or `MANAGE_ORDERS`).
         */
        post: operations["createAccount"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/account/{account_id}": {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description Your id for this request, echoed in the `X-Request-Id` response header and written to the
                 *     gateway's logs. A value outside 1 to 128 printable ASCII characters is replaced by a fresh UUID.
                 */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                /**
                 * @description The account's `account_id` (a UUID). An account of another user is `404`, exactly like an unknown id
                 *     or a value that is not a UUID: the API never tells whether an account exists.
                 */
                account_id: components["parameters"]["AccountId"];
            };
            cookie?: never;
        };
        /**
         * The account record
         * @description The account's plan, state, balances, allowed venues and risk limits. `equity` is valued at the current
         *     mark prices. `terminated_at` is set once the account is `TERMINATED` (final).
         *
         *     Scope: any (`READ_ONLY` or higher). An account of another user is `404`, exactly like an unknown one.
         *     It takes no query parameter: one given is `400`, naming it.
         */
        get: operations["getAccount"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/account/{account_id}/summary": {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description Your id for this request, echoed in the `X-Request-Id` response header and written to the
                 *     gateway's logs. A value outside 1 to 128 printable ASCII characters is replaced by a fresh UUID.
                 */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                /**
                 * @description The account's `account_id` (a UUID). An account of another user is `404`, exactly like an unknown id
                 *     or a value that is not a UUID: the API never tells whether an account exists.
                 */
                account_id: components["parameters"]["AccountId"];
            };
            cookie?: never;
        };
        /**
         * A live snapshot of balances and margin
         * @description Balance, equity at the current marks, margin available for new exposure (equity minus locked margin
         *     minus the margin working orders reserve; it can be negative), margin locked by open positions,
         *     unrealized P&L over open positions, and realized P&L net of fees since 00:00 UTC, as of `as_of`.
         *
         *     Scope: any (`READ_ONLY` or higher). An account of another user is `404`.
         *     It takes no query parameter: one given is `400`, naming it.
         */
        get: operations["getAccountSummary"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/account/{account_id}/positions": {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description Your id for this request, echoed in the `X-Request-Id` response header and written to the
                 *     gateway's logs. A value outside 1 to 128 printable ASCII characters is replaced by a fresh UUID.
                 */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                /**
                 * @description The account's `account_id` (a UUID). An account of another user is `404`, exactly like an unknown id
                 *     or a value that is not a UUID: the API never tells whether an account exists.
                 */
                account_id: components["parameters"]["AccountId"];
            };
            cookie?: never;
        };
        /**
         * Open positions
         * @description Every open position, oldest first (ties by `position_id`). Positions are netted per symbol and venue.
         *     Not paginated.
         *
         *     Scope: any (`READ_ONLY` or higher). An account of another user is `404`.
         *     It takes no query parameter: one given is `400`, naming it.
         */
        get: operations["listPositions"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/account/{account_id}/positions/history": {
        parameters: {
            query?: {
                /** @description Inclusive lower bound, an ISO 8601 date-time with a time zone (`2026-11-22T00:00:00Z`). Absent means from the first row. */
                from?: components["parameters"]["From"];
                /** @description Inclusive upper bound, an ISO 8601 date-time with a time zone; not before `from`. Absent means up to now. */
                to?: components["parameters"]["To"];
                /** @description The most rows to return, a whole number of at least 1. Values above 1000 are clamped to 1000. */
                limit?: components["parameters"]["Limit"];
                /**
                 * @description The cursor of the next page: the last row's id (`fill_id` of a fill, `position_id` of a closed
                 *     position, `order_id` of an order), with `from` set to that row's time. The page starts strictly after that (time, id) pair:
                 *     rows at that time with a greater id, then every row at a later time. Ids compare in lower case. Not a
                 *     UUID, or given without `from`: `400` with an issue on `after_id`.
                 */
                after_id?: components["parameters"]["AfterId"];
            };
            header?: {
                /**
                 * @description Your id for this request, echoed in the `X-Request-Id` response header and written to the
                 *     gateway's logs. A value outside 1 to 128 printable ASCII characters is replaced by a fresh UUID.
                 */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                /**
                 * @description The account's `account_id` (a UUID). An account of another user is `404`, exactly like an unknown id
                 *     or a value that is not a UUID: the API never tells whether an account exists.
                 */
                account_id: components["parameters"]["AccountId"];
            };
            cookie?: never;
        };
        /**
         * Closed positions
         * @description Fully closed positions with `closed_at` in [`from`, `to`], oldest first (ties by `position_id`), at
         *     most `limit` of them. `has_more` is `true` when more rows match. To read them all, ask with `limit`
         *     (and `to` if you want one); while `has_more` is `true`, ask again with the same `limit` and `to`,
         *     `from` set to the last row's `closed_at` and `after_id` to its `position_id`. Each page starts
         *     strictly after that row in (`closed_at`, `position_id`) order, so every row comes exactly once, even
         *     when more than `limit` rows closed at the same instant. An unknown query parameter, a bad `from`,
         *     `to`, `limit` or `after_id`, `from` after `to`, or `after_id` without `from` is `400`.
         *
         *     Scope: any (`READ_ONLY` or higher). An account of another user is `404`.
         */
        get: operations["listPositionHistory"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/account/{account_id}/trades": {
        parameters: {
            query?: {
                /** @description Inclusive lower bound, an ISO 8601 date-time with a time zone (`2026-11-22T00:00:00Z`). Absent means from the first row. */
                from?: components["parameters"]["From"];
                /** @description Inclusive upper bound, an ISO 8601 date-time with a time zone; not before `from`. Absent means up to now. */
                to?: components["parameters"]["To"];
                /** @description The most rows to return, a whole number of at least 1. Values above 1000 are clamped to 1000. */
                limit?: components["parameters"]["Limit"];
                /**
                 * @description The cursor of the next page: the last row's id (`fill_id` of a fill, `position_id` of a closed
                 *     position, `order_id` of an order), with `from` set to that row's time. The page starts strictly after that (time, id) pair:
                 *     rows at that time with a greater id, then every row at a later time. Ids compare in lower case. Not a
                 *     UUID, or given without `from`: `400` with an issue on `after_id`.
                 */
                after_id?: components["parameters"]["AfterId"];
            };
            header?: {
                /**
                 * @description Your id for this request, echoed in the `X-Request-Id` response header and written to the
                 *     gateway's logs. A value outside 1 to 128 printable ASCII characters is replaced by a fresh UUID.
                 */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                /**
                 * @description The account's `account_id` (a UUID). An account of another user is `404`, exactly like an unknown id
                 *     or a value that is not a UUID: the API never tells whether an account exists.
                 */
                account_id: components["parameters"]["AccountId"];
            };
            cookie?: never;
        };
        /**
         * Trade fills
         * @description The account's fills with `executed_at` in [`from`, `to`], oldest first (ties by `fill_id`), at most
         *     `limit` of them. `has_more` is `true` when more rows match. To read them all, ask with `limit` (and
         *     `to` if you want one); while `has_more` is `true`, ask again with the same `limit` and `to`, `from`
         *     set to the last row's `executed_at` and `after_id` to its `fill_id`. Each page starts strictly after
         *     that row in (`executed_at`, `fill_id`) order, so every fill comes exactly once, even when more than
         *     `limit` fills share one instant (one price update filling several orders, a fill over several
         *     levels). An unknown query parameter, a bad `from`, `to`, `limit` or `after_id`, `from` after `to`, or
         *     `after_id` without `from` is `400`.
         *
         *     Scope: any (`READ_ONLY` or higher). An account of another user is `404`.
         */
        get: operations["listTrades"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/account/{account_id}/orders": {
        parameters: {
            query?: {
                /**
                 * @description Look up the order placed with this `client_id` instead (1 to 64 printable ASCII characters, as in
                 *     `POST /v1/order`; anything else, or the parameter given twice, is `400`).
                 */
                client_id?: string;
            };
            header?: {
                /**
                 * @description Your id for this request, echoed in the `X-Request-Id` response header and written to the
                 *     gateway's logs. A value outside 1 to 128 printable ASCII characters is replaced by a fresh UUID.
                 */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                /**
                 * @description The account's `account_id` (a UUID). An account of another user is `404`, exactly like an unknown id
                 *     or a value that is not a UUID: the API never tells whether an account exists.
                 */
                account_id: components["parameters"]["AccountId"];
            };
            cookie?: never;
        };
        /**
         * Working orders, or the order of a client_id
         * @description Without `client_id`: every working order (`NEW`, `PARTIALLY_FILLED` or `HELD`) of the account. Final
         *     orders are not listed here (`GET /v1/account/{account_id}/orders/history` lists every order). Not
         *     paginated.
         *
         *     With `client_id`: the order placed with that `client_id`, in any state (working, `FILLED`,
         *     `CANCELED`, `EXPIRED` or `REJECTED`), as `data` with one element, or none when the account has no
         *     order with it. Orders the engine no longer keeps in memory are found too (from the order archive,
         *     docs/engine.md). A `client_id` names one order for the account's whole life (engines before spent
         *     client_ids let a `client_id` be used again after 24 hours: for such a one the answer is the newest order
         *     placed with it, by `created_at`, ties by `order_id`). Read it right after the placement it names: the
         *     order is there as soon as `POST /v1/order` answered.
         *
         *     An unknown query parameter or a malformed `client_id` is `400`.
         *
         *     Scope: any (`READ_ONLY` or higher). An account of another user is `404`.
         */
        get: operations["listWorkingOrders"];
        put?: never;
        post?: never;
        /**
         * Cancel every working order (of one symbol)
         * @description Cancels every working order of the account (`NEW`, `PARTIALLY_FILLED`, `HELD` children, untriggered
         *     stops and take-profits, reduce-only orders alike), or only those of `symbol`, in **one step** of the
         *     account's actor: no order placed at the same time lands between two of its cancels. It is decided
         *     before this call (and canceled by it) or after it (and judged on its own, still working if it rests).
         *
         *     Answers the orders this call canceled, in placement order, each `CANCELED` (fills they already had
         *     stay). Each cancel sends an `order.cancel` webhook as `DELETE /v1/order/{order_id}` does: `reason`
         *     `user`, except the children of a parent without fills, which go with their parent (`parent_canceled`,
         *     in the list right after it). Positions are left alone (see `POST /v1/account/{account_id}/flatten`).
         *
         *     Idempotent in effect: with nothing working, the answer is `{ "data": [] }` and nothing happens. One
         *     request against the rate limit, whatever the number of orders. A dead-man's switch whose deadline had come
         *     fires first in the same step (`POST /v1/account/{account_id}/cancel-after`): the orders it canceled are
         *     not in the list (their `order.cancel` says `cancel_after`).
         *
         *     `400` for an unknown `symbol`, another query field, or a body that is not empty (none or `{}`; each
         *     field is an issue), and nothing is canceled. Scope: `MANAGE_ORDERS`. An account of another user is `404`.
         */
        delete: operations["cancelAllOrders"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/account/{account_id}/orders/history": {
        parameters: {
            query?: {
                /** @description Inclusive lower bound, an ISO 8601 date-time with a time zone (`2026-11-22T00:00:00Z`). Absent means from the first row. */
                from?: components["parameters"]["From"];
                /** @description Inclusive upper bound, an ISO 8601 date-time with a time zone; not before `from`. Absent means up to now. */
                to?: components["parameters"]["To"];
                /** @description The most rows to return, a whole number of at least 1. Values above 1000 are clamped to 1000. */
                limit?: components["parameters"]["Limit"];
                /**
                 * @description The cursor of the next page: the last row's id (`fill_id` of a fill, `position_id` of a closed
                 *     position, `order_id` of an order), with `from` set to that row's time. The page starts strictly after that (time, id) pair:
                 *     rows at that time with a greater id, then every row at a later time. Ids compare in lower case. Not a
                 *     UUID, or given without `from`: `400` with an issue on `after_id`.
                 */
                after_id?: components["parameters"]["AfterId"];
            };
            header?: {
                /**
                 * @description Your id for this request, echoed in the `X-Request-Id` response header and written to the
                 *     gateway's logs. A value outside 1 to 128 printable ASCII characters is replaced by a fresh UUID.
                 */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                /**
                 * @description The account's `account_id` (a UUID). An account of another user is `404`, exactly like an unknown id
                 *     or a value that is not a UUID: the API never tells whether an account exists.
                 */
                account_id: components["parameters"]["AccountId"];
            };
            cookie?: never;
        };
        /**
         * Order history
         * @description Every order of the account in any state (working, `FILLED`, `CANCELED`, `EXPIRED`, `REJECTED`) with
         *     `created_at` in [`from`, `to`], oldest first (ties by `order_id`), at most `limit` of them, each as it
         *     is now. Orders the engine no longer keeps in memory are listed too: they come from the order archive
         *     (docs/engine.md, "The order archive"), so the history never loses an order. `has_more` is `true` when
         *     more rows match. Paging as in `GET /v1/account/{account_id}/trades`: while `has_more` is `true`, ask
         *     again with the same `limit` and `to`, `from` set to the last row's `created_at` and `after_id` to its
         *     `order_id`; every order comes exactly once. An order's position in the list never moves (it is
         *     ordered by when it was created), so a page read again shows the same orders, perhaps in a later state.
         *     An unknown query parameter, a bad `from`, `to`, `limit` or `after_id`, `from` after `to`, or
         *     `after_id` without `from` is `400`.
         *
         *     Scope: any (`READ_ONLY` or higher). An account of another user is `404`.
         */
        get: operations["listOrderHistory"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/account/{account_id}/flatten": {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description Your id for this request, echoed in the `X-Request-Id` response header and written to the
                 *     gateway's logs. A value outside 1 to 128 printable ASCII characters is replaced by a fresh UUID.
                 */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                /**
                 * @description The account's `account_id` (a UUID). An account of another user is `404`, exactly like an unknown id
                 *     or a value that is not a UUID: the API never tells whether an account exists.
                 */
                account_id: components["parameters"]["AccountId"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Close every position, canceling every order that does not protect one still open
         * @description In **one step** of the account's actor: cancels every working order that protects no open position (as
         *     `DELETE /v1/account/{account_id}/orders` does: entries, resting or partially filled, a parent without
         *     fills with its `HELD` children, and reduce-only orders of a symbol or venue without a position), so
         *     nothing adds exposure while the positions close; then closes each open position, oldest first, exactly
         *     as `POST /v1/position/close` with only `symbol` and `position_id` would: a reduce-only MARKET order (IOC)
         *     for the whole quantity, through the book's depth, with the venue's fees and the market's hours. An order
         *     placed at the same time is decided before the flatten (and canceled or closed by it) or after it (and
         *     judged on its own: it may open a new position).
         *
         *     **A position is never left unprotected.** Its protective orders (the working reduce-only orders, not
         *     `HELD`, that reduce it: its stop-losses, take-profits and reduce-only limits, the children of a parent
         *     that filled; the orders a dead-man's switch keeps, docs/risk.md "Cancel-after") keep working until its
         *     close has filled it completely. Then they are canceled as after any
         *     close that leaves nothing to reduce (`order.cancel`, reason `reduce_only_no_position`), in the same step.
         *     A position whose close is rejected (`market_closed`, a risk rule), only partly filled (a thin book) or
         *     not placed (no price) keeps them working, and its entry in `closes` lists them (`kept_orders`).
         *
         *     The answer says exactly what was and was not done:
         *
         *     - `canceled`: every order working before the call that this step canceled, in the order canceled: first
         *       those protecting no open position (`order.cancel` reason `user`, or `parent_canceled` for the children
         *       of a parent without fills, or `oco` for those of a parent whose fills they already closed), then, as
         *       each position's close filled it completely, its protective orders (`reduce_only_no_position`).
         *     - `closes`: one entry per position open once those orders were canceled, with its closing `order`
         *       and `fills` (`order.ack`, `order.fill` and, when closed whole, `position.close` webhooks):
         *       - `FILLED`: the position is closed; `kept_orders` is empty.
         *       - `CANCELED` with fills: the book could not take the whole quantity; the rest stays open, protected by
         *         `kept_orders`.
         *       - `REJECTED` with `violations`: nothing was closed. `market_closed` when the symbol's market is
         *         closed (OSTIUM non-crypto outside its hours, a halted symbol): flatten places **no** order that
         *         waits for the open; close it later or with a resting `POST /v1/position/close` (LIMIT). Its
         *         protective orders stay in `kept_orders`.
         *       - `order: null` with `issues`: no order could be placed (the symbol has no price yet); its
         *         protective orders stay in `kept_orders`.
         *     - `positions`: the positions still open after the call, as `GET /v1/account/{account_id}/positions`
         *       shows them; empty when the account is flat.
         *
         *     Every order working before the call is in exactly one of `canceled` and the `kept_orders` of the
         *     `closes` (except those a dead-man's switch canceled first, below); after the call the account's working
         *     orders are exactly the `kept_orders`.
         *
         *     A flat account without working orders answers three empty lists and nothing happens. As for cancel-all, a
         *     dead-man's switch whose deadline had come fires first in the same step, and its cancels are not in
         *     `canceled`. A close that ends the account (a breach of the daily loss or drawdown limit) terminates it as
         *     any close would: the risk system cancels the orders still working (reason `risk`; they are in `canceled`)
         *     and closes what is left, which is not in `closes` and not in `positions`. One request against the rate
         *     limit, whatever the number of orders and positions.
         *
         *     It takes no query parameter and no body (none or `{}`): any query parameter or body field is `400`
         *     (one issue per name) and nothing is canceled or closed.
         *
         *     Scope: `MANAGE_ORDERS`, as every call that cancels orders (it also grants the closes). A key without it
         *     (a `TRADE`-only key too) is `403 permission_denied`, and nothing is canceled or closed. An account of
         *     another user is `404`.
         */
        post: operations["flattenAccount"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/account/{account_id}/funding": {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description Your id for this request, echoed in the `X-Request-Id` response header and written to the
                 *     gateway's logs. A value outside 1 to 128 printable ASCII characters is replaced by a fresh UUID.
                 */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                /**
                 * @description The account's `account_id` (a UUID). An account of another user is `404`, exactly like an unknown id
                 *     or a value that is not a UUID: the API never tells whether an account exists.
                 */
                account_id: components["parameters"]["AccountId"];
            };
            cookie?: never;
        };
        /**
         * Funding payments
         * @description Every funding payment of the account's positions (`data`, oldest first) and their sums per asset class
         *     (`by_asset_class`, by asset class name, only classes with payments). Not paginated.
         *
         *     Open positions pay or receive funding every `FUNDING_INTERVAL_MS` (default 8 hours), on their notional at
         *     the mark:
         *
         *     - **crypto:** the larger side pays the smaller, read from the premium of the mark over the index: when
         *       the mark is above the index longs pay `FUNDING_RATE_CRYPTO_PPM` of their notional and shorts receive
         *       it, the reverse when it is below, nothing when they are equal.
         *     - **forex, commodities, indices:** a rollover fee, `FUNDING_ROLLOVER_PPM` of the notional, paid by both
         *       sides, only at a boundary at which the symbol's market is open (no rollover for closed hours: 15
         *       charges a week at 8 hours, not 21; docs/risk.md, "Funding").
         *
         *     `amount > 0` is received, `amount < 0` paid. Each payment moves the balance (and so equity, the daily
         *     loss and the drawdown); a closed position's `funding` is the sum of its payments.
         *
         *     Scope: any (`READ_ONLY` or higher). An account of another user is `404`.
         *     It takes no query parameter: one given is `400`, naming it.
         */
        get: operations["listFunding"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/account/{account_id}/breaches": {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description Your id for this request, echoed in the `X-Request-Id` response header and written to the
                 *     gateway's logs. A value outside 1 to 128 printable ASCII characters is replaced by a fresh UUID.
                 */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                /**
                 * @description The account's `account_id` (a UUID). An account of another user is `404`, exactly like an unknown id
                 *     or a value that is not a UUID: the API never tells whether an account exists.
                 */
                account_id: components["parameters"]["AccountId"];
            };
            cookie?: never;
        };
        /**
         * Breach levels reached
         * @description The warnings the risk monitoring recorded, oldest first. Not paginated. After every price update, fill
         *     and funding payment the engine recomputes equity and records a breach when:
         *
         *     - `daily_loss_limit`: the day's loss, `max(0, day_start_equity − equity)` (realized and unrealized, fees
         *       and funding included), reaches 50% (`info`), 80% (`warning`) or 100% (`critical`) of the daily limit
         *       `pct(starting_balance, daily_loss_pct)`;
         *     - `drawdown_gate`: the drawdown used, `reference − equity`, reaches 50/80/100% of the allowance
         *       `pct(starting_balance, max_drawdown_pct)`, where `reference` is the starting balance (static plans) or
         *       the high-water mark capped at `starting_balance + allowance` (trailing plans: the floor stops trailing
         *       once it reaches the starting balance).
         *
         *     (`pct(x, p)` is `x × p / 100` rounded to 1e-8 USD.) Each level is recorded once per rule per day; a jump
         *     straight past several levels records each of them. The levels of both rules reset with the trading day,
         *     at the plan's `daily_reset` (`00:00Z`). `threshold` is the amount the level stands at and `value` the
         *     loss or drawdown that reached it, both in USD. A `critical` breach of a hard rule (both are hard in every
         *     plan) also terminates the account (see `GET .../violations`).
         *
         *     Scope: any (`READ_ONLY` or higher). An account of another user is `404`.
         *     It takes no query parameter: one given is `400`, naming it.
         */
        get: operations["listBreaches"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/account/{account_id}/violations": {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description Your id for this request, echoed in the `X-Request-Id` response header and written to the
                 *     gateway's logs. A value outside 1 to 128 printable ASCII characters is replaced by a fresh UUID.
                 */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                /**
                 * @description The account's `account_id` (a UUID). An account of another user is `404`, exactly like an unknown id
                 *     or a value that is not a UUID: the API never tells whether an account exists.
                 */
                account_id: components["parameters"]["AccountId"];
            };
            cookie?: never;
        };
        /**
         * Hard rule violations
         * @description The hard rule failures that terminated the account, oldest first: at most one in practice, since
         *     termination is final. When the day's loss reaches the daily limit (`daily_loss_limit`) or equity falls to
         *     the drawdown floor (`drawdown_gate`), the engine, in one atomic step, cancels every working order,
         *     closes every position at the mark (a taker fill at the mark price, the venue's closing fee charged),
         *     records the violation and makes the account `TERMINATED`; every later order is refused with
         *     `account_terminated`. `threshold` is the limit (the daily limit, or the drawdown allowance) and `value`
         *     the loss or drawdown that reached it, both in USD.
         *
         *     Pre-trade refusals are not listed here: they are the `violations` of the refused orders.
         *
         *     Scope: any (`READ_ONLY` or higher). An account of another user is `404`.
         *     It takes no query parameter: one given is `400`, naming it.
         */
        get: operations["listViolations"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/account/{account_id}/analytics": {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description Your id for this request, echoed in the `X-Request-Id` response header and written to the
                 *     gateway's logs. A value outside 1 to 128 printable ASCII characters is replaced by a fresh UUID.
                 */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                /**
                 * @description The account's `account_id` (a UUID). An account of another user is `404`, exactly like an unknown id
                 *     or a value that is not a UUID: the API never tells whether an account exists.
                 */
                account_id: components["parameters"]["AccountId"];
            };
            cookie?: never;
        };
        /**
         * Performance over the closed positions, exposure of the open ones
         * @description Statistics over the account's closed positions, where a position's net P&L is
         *     `realized_pnl − fees + funding`:
         *
         *     - `win_rate`: the share of closed positions with net P&L above zero (a fraction: `0.55`); `null` with none
         *       closed.
         *     - `avg_r_multiple`: the mean of R = realized P&L / initial risk, where the realized P&L is the position's
         *       `realized_pnl` (before fees and funding, unlike the two other ratios). The initial risk is
         *       `|entry price − stop trigger| × quantity` for the first stop-loss linked to the position's entry (a STOP
         *       child of the entry order, or the first reduce-only STOP placed against the position), else 1% of the
         *       starting balance. `null` with none closed.
         *     - `profit_factor`: the sum of the net wins over the absolute sum of the net losses; `null` with no losing
         *       position (`0` with losses and no win).
         *     - `exposure`: the open positions' notional at the current mark, per asset class and venue (sorted by
         *       asset class, then venue).
         *
         *     The three ratios are rounded to 4 decimals.
         *
         *     Scope: any (`READ_ONLY` or higher). An account of another user is `404`.
         *     It takes no query parameter: one given is `400`, naming it.
         */
        get: operations["getAnalytics"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/account/{account_id}/events": {
        parameters: {
            query?: {
                /**
                 * @description List the events whose `sequence` is greater than this, a whole number of at least 0 (the last `sequence`
                 *     you have). Absent means from the first event.
                 */
                after?: number;
                /** @description The most events to return, a whole number of at least 1. Values above 1000 are clamped to 1000. */
                limit?: number;
            };
            header?: {
                /**
                 * @description Your id for this request, echoed in the `X-Request-Id` response header and written to the
                 *     gateway's logs. A value outside 1 to 128 printable ASCII characters is replaced by a fresh UUID.
                 */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                /**
                 * @description The account's `account_id` (a UUID). An account of another user is `404`, exactly like an unknown id
                 *     or a value that is not a UUID: the API never tells whether an account exists.
                 */
                account_id: components["parameters"]["AccountId"];
            };
            cookie?: never;
        };
        /**
         * Catch up on an account's webhook events
         * @description The account's webhook events with `sequence` greater than `after`, oldest first (by `sequence`), at most
         *     `limit` of them, each exactly the envelope a webhook delivers except that `api_key_id` is the calling key's
         *     id. `has_more` is `true` when more follow: ask again with `after` set to the last one's
         *     `sequence`. Every committed event is listed at once, whether or not any key has a webhook or a delivery
         *     succeeded, so a client may poll this instead of receiving webhooks. Events past retention
         *     (`WEBHOOK_RETENTION_DAYS`, 30 by default) are deleted: the list then starts at the oldest kept `sequence`.
         *     An unknown query parameter or a bad `after` or `limit` is `400`.
         *
         *     Scope: any (`READ_ONLY` or higher). An account of another user is `404`.
         */
        get: operations["listEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/account/{account_id}/cancel-after": {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description Your id for this request, echoed in the `X-Request-Id` response header and written to the
                 *     gateway's logs. A value outside 1 to 128 printable ASCII characters is replaced by a fresh UUID.
                 */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                /**
                 * @description The account's `account_id` (a UUID). An account of another user is `404`, exactly like an unknown id
                 *     or a value that is not a UUID: the API never tells whether an account exists.
                 */
                account_id: components["parameters"]["AccountId"];
            };
            cookie?: never;
        };
        /**
         * Read the dead-man's switch
         * @description The account's dead-man's switch: `armed` with its `timeout_ms` and `deadline`, or disarmed (both `null`).
         *     A read decides nothing: in the moment between a deadline and the engine's clock acting on it (a few
         *     milliseconds) the switch may still read armed with a `deadline` in the past.
         *
         *     Scope: any (`READ_ONLY` or higher). An account of another user is `404`.
         */
        get: operations["getCancelAfter"];
        put?: never;
        /**
         * Arm, re-arm or disarm the dead-man's switch
         * @description The account's dead-man's switch (docs/risk.md, "Cancel-after"). `timeout_ms` from 1,000 to 86,400,000
         *     (24 h) arms it, or re-arms it: its deadline becomes the engine's time of the call plus `timeout_ms`,
         *     replacing any earlier one (send it again, as a heartbeat, before the deadline). `0` disarms it (also when
         *     it is not armed). Anything else is `400` (`timeout_ms` must be a whole number of milliseconds, 0 or
         *     within the bounds). The answer is the switch as the call leaves it.
         *
         *     When the deadline comes with no re-arm, the engine (on its own clock, with no request needed) cancels
         *     every working order that could add exposure and **keeps every reduce-only order that protects an open
         *     position**: stop-losses, take-profits, reduce-only limits and the TP/SL children of a filled parent.
         *     Each canceled order sends `order.cancel` (reason `cancel_after`; the `HELD` children of a canceled parent
         *     without fills `parent_canceled`), then `account.cancel_after` lists what was canceled and what was kept;
         *     the switch is then disarmed. Positions are never closed by it. A call that arrives after the deadline
         *     is too late: the switch fires first, then the call is applied. The deadline is journaled: an engine
         *     restart keeps it, and a deadline that passed while the engine was down fires as soon as the engine has
         *     started. `409 conflict` with `reason: account_terminated` to arm a terminated account (a termination
         *     disarms the switch; disarming answers `200`).
         *
         *     Scope: `TRADE` or `MANAGE_ORDERS` (the trading bot the switch watches must be able to send its
         *     heartbeat). An account of another user is `404`.
         */
        post: operations["setCancelAfter"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/order": {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description Your id for this request, echoed in the `X-Request-Id` response header and written to the
                 *     gateway's logs. A value outside 1 to 128 printable ASCII characters is replaced by a fresh UUID.
                 */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Place an order
         * @description Places a MARKET, LIMIT, STOP or TAKE_PROFIT order on the account's default venue or on `venue`, and
         *     executes what can execute at once (the fills are in the answer). **Check `violations` on every
         *     answer:** a risk rejection is `200` with the order `REJECTED` (kept for audit, it never works), no
         *     fills and one violation; it is not an error status.
         *
         *     Statuses:
         *
         *     - `201`: a new order was created and passed the risk checks; `violations` is empty. Its status may
         *       already be final (`FILLED`; `CANCELED` for the unfilled rest of an IOC; `EXPIRED` for a FOK the book
         *       could not fill).
         *     - `200` with `Idempotent-Replayed: true`: the `client_id` was used before with an equal normalised
         *       body; this is the original answer, unchanged (a replayed rejection stays a rejection). Nothing new
         *       was placed.
         *     - `200` without that header: the order was rejected by a risk rule or because a post-only order
         *       would take (`post_only_would_take`).
         *     - `409`: the `client_id` was used before with a different body (`client_id`, `order_id` of the
         *       original); or the parent is final without any fill (`reason: parent_final`); or a reduce-only order
         *       (TP/SL children and closes included) has no opposite position to reduce
         *       (`reason: reduce_only_would_increase`); or the account already holds 200 working orders
         *       (`order_limit_reached` with the `limit`, `ENGINE_MAX_WORKING_ORDERS`: cancel one first; closing a
         *       position with `POST /v1/position/close` is never refused by it).
         *     - `404`: the account, `parent_order_id` or `position_id` is unknown or belongs to another user. A
         *       parent final for longer than an hour (or older than the account's 1,000 most recent final orders)
         *       is no longer known to the engine's memory and is `404` too.
         *     - `400`: the body is malformed or breaks a placement rule (one issue per field): unknown symbol,
         *       quantity or price off the ticker's grid or below `min_quantity`, `limit_price` without LIMIT,
         *       `trigger_price` without STOP/TAKE_PROFIT, both trigger flags, `expire_at` without GTD or not in the
         *       future, a MARKET order with GTC/GTD/GTX or `post_only`, a MARKET order on a symbol that has no price
         *       yet.
         *
         *     Idempotency: `client_id` is unique per account forever. Set one stable `client_id` per trading intent
         *     and retry a timeout or a `500` with the same body, at any time: you get the original answer and never
         *     a second order.
         *
         *     Headroom: every answer (`201` and `200`) carries `risk_headroom`, the room left under the daily loss
         *     limit, the drawdown floor and the symbol and total exposure caps after the order (for a rejected order,
         *     the room it would have left). `POST /v1/order/test` answers the violations and the headroom of an order
         *     without placing it.
         *
         *     Defaults: `time_in_force` GTC (IOC for MARKET); `post_only`, `reduce_only` false; a STOP or
         *     TAKE_PROFIT without a trigger flag triggers on the mark price. GTX is GTC plus `post_only`.
         *     Children (`parent_order_id`) are reduce-only, start `HELD` until the parent fills, and cancel each
         *     other when one fills (OCO).
         *
         *     Scope: `TRADE` (granted by `TRADE` or `MANAGE_ORDERS`).
         */
        post: operations["placeOrder"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/order/test": {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description Your id for this request, echoed in the `X-Request-Id` response header and written to the
                 *     gateway's logs. A value outside 1 to 128 printable ASCII characters is replaced by a fresh UUID.
                 */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Check an order against the risk rules without placing it
         * @description Takes the body of `POST /v1/order`, runs every check that order would go through against the account as
         *     it is now, and **places nothing**: no order, no fill, no reserved margin, no webhook; the working orders
         *     and the balances are unchanged. `client_id` is validated like any other field, then ignored and not
         *     spent: a later `POST /v1/order` with the same `client_id` is a new order (`201`), not a replay, and a
         *     `client_id` already used is no conflict here.
         *
         *     Always `200 { violations, risk_headroom }` when the body could be placed:
         *
         *     - `violations`: what `POST /v1/order` would refuse this order with now (at most one); empty when it
         *       would be accepted. The pre-trade checks, in order (the first that refuses wins):
         *       `account_terminated` (the account is `TERMINATED`), `venue_not_allowed` (the venue is not in the plan's
         *       `allowed_venues` or does not list the symbol), `market_closed` (a MARKET order while the symbol's
         *       market is closed), `drawdown_gate` (`equity − fee < floor`), `daily_loss_limit` (the day's loss already
         *       reaches the limit, or the order's worst case, its fee plus the loss down to the nearest working
         *       stop-loss protecting its position, exceeds what is left), `news_freeze` (an event concerning the
         *       symbol is inside its freeze window), `exposure_cap` (the symbol's or the account's exposure would pass
         *       `max_symbol_notional` or `max_total_notional`, working orders included), `insufficient_margin` (the
         *       initial margin, notional / leverage, plus the taker fee exceed `margin_available`). The rules from
         *       `drawdown_gate` on skip reduce-only orders, which cannot add exposure. A post-only (or GTX) order that
         *       would take is refused with `post_only_would_take`.
         *     - `risk_headroom`: the room under each limit the order would leave, computed as if it were accepted
         *       (`0` on a limit it would break; see `RiskHeadroom`). For an order that passes, it equals the
         *       `risk_headroom` of `POST /v1/order` placed right after with the same body and prices.
         *
         *     The answer describes this moment only: prices move, so a later `POST /v1/order` may still be refused.
         *
         *     The errors are those of `POST /v1/order`: `400` for a malformed body or one that breaks a placement rule
         *     (unknown symbol, off-grid quantity or price, a field the kind does not take, ...); `404` when the
         *     account, `parent_order_id` or `position_id` is unknown or another user's; `409` when the parent is final
         *     without any fill (`reason: parent_final`) or a reduce-only order has no opposite position to reduce
         *     (`reason: reduce_only_would_increase`).
         *
         *     Scope: `TRADE` (granted by `TRADE` or `MANAGE_ORDERS`).
         */
        post: operations["testOrder"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/order/{order_id}": {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description Your id for this request, echoed in the `X-Request-Id` response header and written to the
                 *     gateway's logs. A value outside 1 to 128 printable ASCII characters is replaced by a fresh UUID.
                 */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                /** @description The order's `order_id` (a UUID). An order of another user, an unknown id or a value that is not a UUID is `404`. */
                order_id: string;
            };
            cookie?: never;
        };
        /**
         * Look an order up
         * @description The order in any state: working (`NEW`, `PARTIALLY_FILLED`, `HELD`) or final (`FILLED`, `CANCELED`,
         *     `EXPIRED`, `REJECTED`), the same record as in the answer of `POST /v1/order`. An order the engine no
         *     longer keeps in memory (final for longer than an hour, or older than the account's 1,000 most recent
         *     final orders) is read from the order archive (docs/engine.md, "The order archive"): it is found for
         *     the account's whole life (orders forgotten before the archive existed, engine migration 009, once the
         *     operator has run its backfill).
         *
         *     Scope: any (`READ_ONLY` or higher). An order of another user is `404`, exactly as an unknown id or a
         *     value that is not a UUID.
         */
        get: operations["getOrder"];
        put?: never;
        post?: never;
        /**
         * Cancel an order
         * @description Cancels a working order (`NEW`, `PARTIALLY_FILLED` or `HELD`) and answers it in its final state,
         *     `CANCELED` (fills it already had stay). Cancelling a parent without fills cancels its children.
         *     Safe to retry: an order that is already `CANCELED` answers the same `200`. A `FILLED`, `REJECTED` or
         *     `EXPIRED` order cannot be cancelled: `409` with `reason: order_final` and the order as it is. An order
         *     final for longer than an hour, or older than the account's 1,000 most recent final orders, has left the
         *     engine's memory (it stays in the journal and the order archive, and `GET /v1/order/{order_id}` still
         *     finds it): cancelling or amending it is `404`.
         *
         *     Scope: `MANAGE_ORDERS`. An order of another user is `404`.
         */
        delete: operations["cancelOrder"];
        options?: never;
        head?: never;
        /**
         * Amend a working order (TP/SL)
         * @description Changes the `trigger_price` (STOP, TAKE_PROFIT, before it triggered), the `limit_price` (LIMIT) or the
         *     `quantity` (above the filled quantity) of a working order; at least one of them. The amended order is
         *     looked at again at once: a limit moved across the mark takes, a trigger moved past the reference
         *     fires, so the answer may show it filled. `400` for a field the order's kind does not have, a value off
         *     the grid, or a post-only limit that would now take. `409` with `reason: order_final` for an order that
         *     is no longer working (`CANCELED` included), `reason: insufficient_margin` when the larger order
         *     would need more margin than is available, or `reason` naming a risk rule (`drawdown_gate`,
         *     `daily_loss_limit`, `news_freeze`, `exposure_cap`) with its `violations` when an amendment that grows
         *     the order (more quantity, a price moved) breaks it: the order is checked as if placed in the old one's
         *     stead (docs/risk.md, "Amending"), and stays as it was.
         *
         *     Scope: `MANAGE_ORDERS`. An order of another user is `404`.
         */
        patch: operations["amendOrder"];
        trace?: never;
    };
    "/v1/position/close": {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description Your id for this request, echoed in the `X-Request-Id` response header and written to the
                 *     gateway's logs. A value outside 1 to 128 printable ASCII characters is replaced by a fresh UUID.
                 */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Close a position
         * @description Places a reduce-only order against one open position: the whole of it, or `quantity`. MARKET (IOC by
         *     default, or FOK) unless `kind` is LIMIT with `price` (GTC by default, or GTX, IOC, FOK). The position
         *     is the one named by `position_id`, else the one on `symbol` at `venue`, else the only one on `symbol`
         *     (open on several venues without either: `400`). No such open position: `404`.
         *
         *     The answer is the place-order answer with the same statuses and the same idempotency: `201` for a new
         *     order, `200` with `Idempotent-Replayed: true` for a repeated `client_id` with an equal body, `200` for
         *     a rejection (a closed market, a GTX close that would take), `409` for a `client_id` used with a
         *     different body.
         *
         *     Scope: `TRADE` (granted by `TRADE` or `MANAGE_ORDERS`).
         */
        post: operations["closePosition"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/orders/batch": {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description Your id for this request, echoed in the `X-Request-Id` response header and written to the
                 *     gateway's logs. A value outside 1 to 128 printable ASCII characters is replaced by a fresh UUID.
                 */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Place up to 20 orders
         * @description Places 1 to 20 orders, each with the body of `POST /v1/order`. They are judged **one after another, in
         *     the given order, exactly as that many `POST /v1/order` calls sent one at a time would be**: each has its
         *     own validation, `client_id` idempotency, risk checks and headroom, and is judged against the account as
         *     the orders before it left it (an order may be refused for the margin or exposure an earlier one took).
         *     Orders may name different accounts of the caller; each is judged on its own account, in the batch's
         *     order. The batch is not atomic: an order that fails does not undo or stop the others.
         *
         *     The answer is always `200 { data }` once the batch itself is well formed: `data[i]` answers
         *     `orders[i]` with `status`, the HTTP status `POST /v1/order` would have answered (`201`, `200`, `400`,
         *     `404`, `409`, or `500`/`503` when the engine failed on that order), `body`, the body it would have
         *     answered, and `replayed`, whether it would have carried `Idempotent-Replayed: true` (a repeated
         *     `client_id`; the original answer, nothing new placed). A `503` item may or may not have been placed,
         *     like a `POST /v1/order` cut off: retry it with its `client_id`.
         *
         *     Two batches (or a batch and single orders) on one account at once never pass a limit and never place a
         *     `client_id` twice: the account's actor judges each order alone, one at a time.
         *
         *     Rate limit: the batch counts **one request per order** against the key's budget, taken all at once
         *     before anything is placed. When the budget left is smaller than the batch, the whole batch is refused
         *     `429` (with `Retry-After`) and nothing of it is placed or charged; send it later or split it. A batch
         *     refused `400` as a whole, or `403` (IP allow-list, scope: its body is not read), counts as one request.
         *
         *     `400` (nothing placed) when `orders` is missing, not an array, empty or longer than 20, or the body has
         *     another field or is not JSON.
         *
         *     Scope: `TRADE` (granted by `TRADE` or `MANAGE_ORDERS`).
         */
        post: operations["placeOrderBatch"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/stream": {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description Your id for this request, echoed in the `X-Request-Id` response header and written to the
                 *     gateway's logs. A value outside 1 to 128 printable ASCII characters is replaced by a fresh UUID.
                 */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path?: never;
            cookie?: never;
        };
        /**
         * Live account and ticker stream (WebSocket)
         * @description Upgrades to a WebSocket (RFC 6455; send `Connection: Upgrade`, `Upgrade: websocket`) carrying the live
         *     events of the caller's accounts and ticker prices (docs/streaming.md). The upgrade request is authenticated,
         *     rate limited (it counts one request) and checked against the key's IP allow-list and scopes exactly like a
         *     REST request; a refusal is the same HTTP answer. A `GET` that is not an upgrade is `400`.
         *
         *     Messages are JSON text frames. The client sends `StreamOp`s; the gateway sends `StreamServerMessage`s:
         *     acks (`subscribed`, `unsubscribed`, `pong`), errors, account events and tickers. Account events are
         *     exactly the webhook envelopes (`WebhookEnvelope`, with `api_key_id` the socket's key), in `sequence`
         *     order, with no gap and no duplicate: `{"op":"subscribe","account_id":…,"after":N}` sends every event
         *     after `N` from the journal, then each new one as it commits; without `after`, only events from now on
         *     (the ack's `after` says where it starts). Reconnect with the last `sequence` received as `after`. Each
         *     operation counts one request against the key's rate limit (`ping` does not). A bad operation is an error
         *     message (`StreamError`, the registry's codes: `invalid_payload`, `not_found` for an unknown account or
         *     another user's, `conflict`, `rate_limited`, `engine_unavailable`); the socket stays open.
         *
         *     Order entry (docs/streaming.md, "Order entry"): the trading operations `order.place`, `order.test`,
         *     `order.cancel`, `order.amend`, `position.close`, `orders.batch`, `orders.cancel_all`, `account.flatten`
         *     and `cancel_after.set` carry their REST route's input in `args` (`StreamTradingOp`) and are answered with
         *     that route's status and body (`StreamTradingAnswer`), under the same scope (as on REST: TRADE to place,
         *     MANAGE_ORDERS to cancel and amend), validation, rate limit (a batch counts one per order), idempotency
         *     (`replayed: true` where REST sends `Idempotent-Replayed: true`) and overload answers (`503 overloaded`
         *     with `retry_after_ms`). Operations may be pipelined: those on one account are decided in the order sent
         *     (a cancel or amend of an order the socket never saw in an answer waits for everything sent before it);
         *     answers carry their `id` and may overtake each other across accounts. An operation on an account holds
         *     that account's events until its answer is sent: a placed order's events follow its answer.
         *
         *     Limits: `STREAM_MAX_SOCKETS_PER_KEY` (10) open sockets per key on one gateway (`409
         *     stream_limit_reached`), `STREAM_MAX_ACCOUNTS_PER_SOCKET` (100) accounts per socket, 16 KiB per client
         *     message, 256 operations waiting per socket.
         *
         *     Close codes: `1001` the gateway is shutting down (reconnect with `after`); `1009` a client message over
         *     16 KiB; `4001` the key was revoked or expired; `4008` slow consumer: the socket held more than
         *     `STREAM_MAX_BUFFERED_BYTES` (4 MiB) unsent (reconnect with `after` and read faster). The gateway pings
         *     every `STREAM_PING_INTERVAL_MS` (20 s) and cuts a socket that answered neither the previous ping nor sent
         *     anything since.
         *
         *     Scope: any (`READ_ONLY` or higher).
         */
        get: operations["openStream"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/healthz": {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description Your id for this request, echoed in the `X-Request-Id` response header and written to the
                 *     gateway's logs. A value outside 1 to 128 printable ASCII characters is replaced by a fresh UUID.
                 */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path?: never;
            cookie?: never;
        };
        /**
         * Liveness
         * @description The process is up. On both listeners, without authentication.
         */
        get: operations["getHealth"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/readyz": {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description Your id for this request, echoed in the `X-Request-Id` response header and written to the
                 *     gateway's logs. A value outside 1 to 128 printable ASCII characters is replaced by a fresh UUID.
                 */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path?: never;
            cookie?: never;
        };
        /**
         * Readiness
         * @description The wallet and the engine behind this gateway are reachable. On both listeners, without authentication.
         */
        get: operations["getReadiness"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/metrics": {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description Your id for this request, echoed in the `X-Request-Id` response header and written to the
                 *     gateway's logs. A value outside 1 to 128 printable ASCII characters is replaced by a fresh UUID.
                 */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path?: never;
            cookie?: never;
        };
        /**
         * Prometheus metrics
         * @description The gateway's metrics in Prometheus text format, among them `http_requests_total` and
         *     `http_request_duration_seconds` by listener, method, route template and status. Served on the
         *     wallet listener only (which binds to loopback by default), without authentication.
         */
        get: operations["getMetrics"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        /** Format: uuid */
        Uuid: string;
        /**
         * Format: date-time
         * @description ISO 8601 UTC with milliseconds.
         */
        Timestamp: string;
        /**
         * Format: date-time
         * @description ISO 8601 UTC with milliseconds, or `null`.
         */
        NullableTimestamp: string | null;
        /**
         * @description `READ_ONLY`: every GET endpoint. `TRADE`: also places orders and closes positions. `MANAGE_ORDERS`:
         *     also cancels and amends orders, one or all, and flattens an account (full order management). A key may
         *     hold several.
         * @enum {string}
         */
        Scope: "READ_ONLY" | "TRADE" | "MANAGE_ORDERS";
        /** @enum {string} */
        Venue: "GMX" | "OSTIUM";
        /** @enum {string} */
        AssetClass: "crypto" | "forex" | "commodities" | "indices";
        /**
         * @example {
         *       "label": "momentum bot",
         *       "permissions": [
         *         "READ_ONLY",
         *         "TRADE"
         *       ],
         *       "ipWhitelist": [
         *         "203.0.113.7",
         *         "2001:db8::/32"
         *       ],
         *       "expiresAt": "2027-01-01T00:00:00Z"
         *     }
         */
        CreateApiKeyRequest: {
            /** @description A name for the key; trimmed, 1 to 100 characters (Unicode code points, so an emoji is one), no control characters (C0, DEL, C1), no bidirectional formatting characters (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069) and no unpaired surrogate (a JSON `\ud800` escape with no partner). */
            label: string;
            permissions: components["schemas"]["Scope"][];
            /** @description IPv4/IPv6 addresses or CIDR ranges (`10.0.0.0/8`, `2001:db8::/32`). Empty or absent allows every address. */
            ipWhitelist?: string[];
            /** @description Where trade events for this key's user are posted. Must be `https://` with a host. */
            webhookUrl?: string;
            /**
             * Format: date-time
             * @description ISO 8601 date-time with a time zone, in the future. After it the key stops validating.
             */
            expiresAt?: string;
        };
        /** @description The fields every key record carries. */
        ApiKeyFields: {
            id: components["schemas"]["Uuid"];
            /** @description `svc_ak_` and the first 8 hexadecimal characters of the public key: how you tell keys apart. */
            keyPrefix: string;
            label: string;
            permissions: components["schemas"]["Scope"][];
            /** @description As given at creation (trimmed, duplicates collapsed); empty allows every address. */
            ipWhitelist: string[];
            webhookUrl: string | null;
            expiresAt: components["schemas"]["NullableTimestamp"];
            createdAt: components["schemas"]["Timestamp"];
        };
        /** @description A key record as the creation response shows it. */
        CreatedApiKey: components["schemas"]["ApiKeyFields"];
        /** @description A key record as the list shows it, with the time of its last use. */
        ApiKey: {
            /** @description Last time the key was validated (written about once a second), or `null`. */
            lastUsedAt: components["schemas"]["NullableTimestamp"];
        } & components["schemas"]["ApiKeyFields"];
        ApiKeyList: {
            apiKeys: components["schemas"]["ApiKey"][];
        };
        CreateApiKeyResponse: {
            apiKey: components["schemas"]["CreatedApiKey"];
            /** @description The public key, sent as `X-API-Key`. */
            key: string;
            /** @description The secret, sent as `X-API-Secret`. Shown once. */
            secret: string;
            /**
             * @description Present only when a `webhookUrl` was given. `whsec_` and the base64 of 24 random bytes; verifies
             *     the Standard Webhooks signature of every delivery. Shown once.
             */
            webhookSecret?: string;
        };
        RevokedApiKey: {
            id: components["schemas"]["Uuid"];
            revokedAt: components["schemas"]["Timestamp"];
        };
        ValidateApiKeyRequest: {
            /** @description The public key as presented (`X-API-Key`). */
            key: string;
            /** @description The secret as presented (`X-API-Secret`). */
            secret: string;
            /** @description The caller's source IP address. */
            ip: string;
            /** @description The scope the endpoint requires. Without it, only identity, expiry and IP are checked. An unknown scope is `400`. */
            permission?: components["schemas"]["Scope"];
        };
        ValidateApiKeyResponse: {
            /** @constant */
            valid: true;
            userId: string;
            keyId: components["schemas"]["Uuid"];
            permissions: components["schemas"]["Scope"][];
        };
        Ticker: {
            /** @description `<BASE>-USD`. Requests also accept `btcusd`, `BTC/USD` and `btc-usd`. */
            symbol: string;
            base: string;
            /** @constant */
            quote: "USD";
            asset_class: components["schemas"]["AssetClass"];
            /** @description The venues that list the symbol; GMX lists crypto only. */
            venues: components["schemas"]["Venue"][];
            /** @description The symbol's leverage cap; the plan's cap for the asset class may be lower. */
            max_leverage: number;
            /** @description Prices are multiples of this. */
            tick_size: number;
            /** @description Quantities are multiples of this. */
            quantity_step: number;
            /** @description The smallest order quantity. */
            min_quantity: number;
            /** @description The current mark price, or `null` while the symbol has no price yet. */
            mark_price: number | null;
            /** @description The current index price, or `null` while the symbol has no price yet. */
            index_price: number | null;
            /** @description Whether the symbol's market is open now (crypto always is). */
            market_open: boolean;
        };
        TickerList: {
            data: components["schemas"]["Ticker"][];
        };
        Plan: {
            plan_id: components["schemas"]["Uuid"];
            name: string;
            /** @description USD. */
            starting_balance: number;
            profit_target_pct: components["schemas"]["ProfitTargetPct"];
            max_drawdown_pct: components["schemas"]["MaxDrawdownPct"];
            drawdown_mode: components["schemas"]["DrawdownMode"];
            daily_loss_pct: components["schemas"]["DailyLossPct"];
            daily_reset: components["schemas"]["DailyReset"];
            max_leverage: components["schemas"]["MaxLeverage"];
            max_symbol_notional: components["schemas"]["MaxSymbolNotional"];
            max_total_notional: components["schemas"]["MaxTotalNotional"];
            news_freeze: components["schemas"]["NewsFreeze"];
            allowed_venues: components["schemas"]["Venue"][];
            /** @description The rule set the plan is enforced with. */
            rules_version: components["schemas"]["RulesVersion"];
        };
        PlanList: {
            data: components["schemas"]["Plan"][];
        };
        Calendar: {
            data: components["schemas"]["NewsEvent"][];
        };
        NewsEvent: {
            /** @example us-fomc-2026-12-09 */
            id: string;
            /** @example FOMC rate decision */
            title: string;
            /** Format: date-time */
            scheduled_at: string;
            /** @description Symbols the event affects by name. */
            symbols: string[];
            /** @description Asset classes the event affects as a whole. */
            asset_classes: ("crypto" | "forex" | "commodities" | "indices")[];
        };
        /**
         * @description `BUY` or `SELL`. On a position, `BUY` is long and `SELL` is short.
         * @enum {string}
         */
        Side: "BUY" | "SELL";
        /** @enum {string} */
        OrderKind: "MARKET" | "LIMIT" | "STOP" | "TAKE_PROFIT";
        /**
         * @description `GTC` good till cancelled; `GTD` good till `expire_at` (then `EXPIRED`, reason `gtd`, within 1 s of
         *     `expire_at` even with no other activity on the account, with its `order.cancel` webhook); `GTX` GTC plus
         *     `post_only`; `IOC` immediate or cancel (the rest is cancelled); `FOK` fill or kill (all at once, or
         *     `EXPIRED` with no fill).
         * @enum {string}
         */
        TimeInForce: "GTC" | "GTD" | "GTX" | "IOC" | "FOK";
        /**
         * @description Working: `HELD` (a TP/SL child waiting for its parent's first fill), `NEW`, `PARTIALLY_FILLED`.
         *     Final: `FILLED`, `CANCELED` (by the user, the risk system, a cancelled parent, a filled OCO sibling,
         *     the rest of an IOC), `REJECTED` (by a risk rule or a post-only order that would take; never worked),
         *     `EXPIRED` (GTD time passed, FOK not fully fillable).
         * @enum {string}
         */
        OrderStatus: "HELD" | "NEW" | "PARTIALLY_FILLED" | "FILLED" | "CANCELED" | "REJECTED" | "EXPIRED";
        /**
         * @description `MAKER` for a resting LIMIT filled when the mark crossed it, `TAKER` otherwise.
         * @enum {string}
         */
        Liquidity: "MAKER" | "TAKER";
        /**
         * @description `ACTIVE` → `PASSED` when the profit target is reached on the balance with no open position (open profit
         *     never passes; docs/risk.md, "Passing"; trading goes on). `ACTIVE` or `PASSED` →
         *     `TERMINATED` on a hard violation (max drawdown, daily loss): final; working orders are cancelled,
         *     positions closed at the mark, and every later order is rejected with `account_terminated`.
         * @enum {string}
         */
        AccountState: "ACTIVE" | "PASSED" | "TERMINATED";
        /** @enum {string} */
        ViolationRule: "drawdown_gate" | "daily_loss_limit" | "news_freeze" | "exposure_cap" | "insufficient_margin" | "account_terminated" | "market_closed" | "venue_not_allowed" | "post_only_would_take";
        /** @enum {string} */
        Severity: "info" | "warning" | "critical";
        /** @description A symbol as the catalogue spells it, `<BASE>-USD`. */
        Symbol: string;
        /** @description A symbol of `GET /v1/tickers`; `btcusd`, `BTC/USD` and `btc-usd` all mean `BTC-USD`. Unknown is `400`. */
        SymbolInput: string;
        /** Format: uuid */
        NullableUuid: string | null;
        /**
         * @description A JSON number or a decimal string (`"0.015"`), read exactly from its decimal text. It must be greater
         *     than zero and a multiple of the symbol's `quantity_step` (quantities, at least `min_quantity`) or
         *     `tick_size` (prices). Anything else (`"1e5"`, `".5"`, `true`) is `400`.
         */
        DecimalInput: number | string;
        /** @description As `DecimalInput`; `null` is the same as leaving the field out. */
        OptionalDecimalInput: components["schemas"]["DecimalInput"] | null;
        /**
         * @description Your deduplication id, 1 to 64 printable ASCII characters, unique per account forever. It appears on
         *     the order and its fills. `null` is the same as leaving it out.
         */
        ClientIdInput: string | null;
        /**
         * @description `GMX` or `OSTIUM`; `null` is the same as leaving it out.
         * @enum {string|null}
         */
        VenueInput: "GMX" | "OSTIUM" | null;
        /**
         * @description See `TimeInForce`; `null` is the same as leaving it out.
         * @enum {string|null}
         */
        TimeInForceInput: "GTC" | "GTD" | "GTX" | "IOC" | "FOK" | null;
        /** @description `null` is the same as leaving it out (`false`). */
        FlagInput: boolean | null;
        /** @description Leverage caps per asset class. */
        MaxLeverage: {
            crypto: number;
            forex: number;
            commodities: number;
            indices: number;
        };
        /** @description Trading is locked this many minutes before and after a scheduled high-impact event. */
        NewsFreeze: {
            minutes_before: number;
            minutes_after: number;
        };
        /** @description Percent of the starting balance; a flat account whose balance (realized P&L, fees and funding, no open position) reaches it moves to PASSED. Open profit never passes (docs/risk.md, "Passing"). */
        ProfitTargetPct: number;
        /** @description Percent of the starting balance: the drawdown allowance, a fixed amount in both modes; equity at or below the floor terminates the account. */
        MaxDrawdownPct: number;
        /**
         * @description `static`: the floor stays at starting balance minus the allowance. `trailing`: the floor follows the equity high-water mark up, the allowance below it, and stops trailing once it reaches the starting balance (docs/risk.md, "drawdown_gate").
         * @enum {string}
         */
        DrawdownMode: "static" | "trailing";
        /** @description Percent of the starting balance that may be lost in one day (realized plus unrealized); breaching it terminates the account. */
        DailyLossPct: number;
        /**
         * @description Daily limits reset at midnight UTC.
         * @constant
         */
        DailyReset: "00:00Z";
        /** @description Exposure cap per symbol, USD. */
        MaxSymbolNotional: number;
        /** @description Exposure cap over all symbols, USD. */
        MaxTotalNotional: number;
        /** @description A version of the risk rules, its date and revision, e.g. `2026-11-01.1`. */
        RulesVersion: string;
        /**
         * @example {
         *       "plan_id": "48a184ce-7d26-4b3f-82e3-cbf4f08383ba",
         *       "label": "swing account"
         *     }
         */
        CreateAccountRequest: {
            /** @description A `plan_id` of `GET /v1/plans`; unknown is `400`. */
            plan_id: components["schemas"]["Uuid"];
            /** @description The venue orders go to unless they name one; must be allowed by the plan. Default the plan's first allowed venue. */
            default_venue?: components["schemas"]["VenueInput"];
            /** @description Your name for the account, at most 100 characters (Unicode code points), no control characters (C0, DEL, C1), no bidirectional formatting characters (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069) and no unpaired surrogate. */
            label?: string | null;
        };
        /** @description The plan's limits as they apply to the account (frozen when the account was opened). */
        RiskLimits: {
            max_drawdown_pct: components["schemas"]["MaxDrawdownPct"];
            drawdown_mode: components["schemas"]["DrawdownMode"];
            daily_loss_pct: components["schemas"]["DailyLossPct"];
            daily_reset: components["schemas"]["DailyReset"];
            profit_target_pct: components["schemas"]["ProfitTargetPct"];
            max_leverage: components["schemas"]["MaxLeverage"];
            max_symbol_notional: components["schemas"]["MaxSymbolNotional"];
            max_total_notional: components["schemas"]["MaxTotalNotional"];
            news_freeze: components["schemas"]["NewsFreeze"];
        };
        Account: {
            account_id: components["schemas"]["Uuid"];
            plan_id: components["schemas"]["Uuid"];
            /** @description The rule set the account is enforced with (the plan's at opening). */
            rules_version: components["schemas"]["RulesVersion"];
            label: string | null;
            state: components["schemas"]["AccountState"];
            default_venue: components["schemas"]["Venue"];
            allowed_venues: components["schemas"]["Venue"][];
            /** @description USD; starting balance plus realized P&L minus fees plus funding. */
            balance: number;
            /** @description USD; balance plus unrealized P&L at the current marks. */
            equity: number;
            /** @description USD. */
            starting_balance: number;
            /** @description USD; the highest equity seen (the trailing drawdown follows it). */
            high_water_mark: number;
            /** @description USD; equity at 00:00 UTC today (the daily loss limit counts from it). */
            day_start_equity: number;
            risk: components["schemas"]["RiskLimits"];
            created_at: components["schemas"]["Timestamp"];
            /** @description When the account was terminated, or `null`. */
            terminated_at: components["schemas"]["NullableTimestamp"];
        };
        AccountSummary: {
            account_id: components["schemas"]["Uuid"];
            state: components["schemas"]["AccountState"];
            /** @description USD. */
            balance: number;
            /** @description USD, at the current marks. */
            equity: number;
            /** @description USD available for new exposure; negative when losses ate into the locked margin. */
            margin_available: number;
            /** @description USD locked as initial margin by the open positions. */
            margin_locked: number;
            /** @description USD over the open positions, at the current marks. */
            unrealized_pnl: number;
            /** @description USD the day's trading moved the balance by since 00:00 UTC (the daily reset): realized P&L minus fees plus funding received and paid, as the daily loss rule counts them (docs/risk.md). The rule's loss is `day_start_equity − equity`, the unrealized P&L's change over the day included. */
            realized_pnl_today: number;
            as_of: components["schemas"]["Timestamp"];
        };
        /** @description An open position, netted per symbol and venue. */
        Position: {
            position_id: components["schemas"]["Uuid"];
            symbol: components["schemas"]["Symbol"];
            side: components["schemas"]["Side"];
            /** @description Base-asset quantity. */
            quantity: number;
            /** @description Average entry price. */
            entry_price: number;
            mark_price: number;
            /** @description USD at `mark_price`. */
            unrealized_pnl: number;
            /** @description The plan's cap for the asset class, or the ticker's if lower. */
            leverage: number;
            venue: components["schemas"]["Venue"];
            opened_at: components["schemas"]["Timestamp"];
            /** @description USD of initial margin (entry notional / leverage). */
            margin: number;
            /** @description Where the position's loss reaches its margin, on the tick grid: long `entry × (1 − 1/leverage)`, short `entry × (1 + 1/leverage)`. Enforced: a price update (or fill) whose mark is at or past it closes the position at the mark, a fill with `reason: liquidation` (docs/risk.md, "Liquidation"). */
            liquidation_price: number;
        };
        PositionList: {
            data: components["schemas"]["Position"][];
        };
        /** @description A fully closed position. */
        ClosedPosition: {
            position_id: components["schemas"]["Uuid"];
            symbol: components["schemas"]["Symbol"];
            side: components["schemas"]["Side"];
            /** @description Base-asset quantity opened over the position's life (all of it closed). */
            quantity: number;
            entry_price: number;
            exit_price: number;
            /** @description USD, before fees and funding. */
            realized_pnl: number;
            /** @description USD. */
            fees: number;
            /** @description USD; positive when received. */
            funding: number;
            leverage: number;
            venue: components["schemas"]["Venue"];
            opened_at: components["schemas"]["Timestamp"];
            closed_at: components["schemas"]["Timestamp"];
            /** @description This position's `realized_pnl` (before fees and funding) over its initial risk (see `getAnalytics`), rounded to 4 decimals, or `null` while it is not computed. */
            r_multiple: number | null;
        };
        ClosedPositionPage: {
            data: components["schemas"]["ClosedPosition"][];
            /** @description More rows match the bounds than `limit` returned. */
            has_more: boolean;
        };
        Fill: {
            fill_id: components["schemas"]["Uuid"];
            order_id: components["schemas"]["Uuid"];
            account_id: components["schemas"]["Uuid"];
            /** @description The order's `client_id`, or `null`. */
            client_id: string | null;
            symbol: components["schemas"]["Symbol"];
            side: components["schemas"]["Side"];
            quantity: number;
            price: number;
            /** @description USD, by the venue's fee schedule. */
            fee: number;
            liquidity: components["schemas"]["Liquidity"];
            venue: components["schemas"]["Venue"];
            /** @description USD realized by this fill (zero unless it reduced a position), before its fee. */
            realized_pnl: number;
            executed_at: components["schemas"]["Timestamp"];
            /**
             * @description Present only on a fill the risk system made: `liquidation`, the close of a position whose mark reached its `liquidation_price`; `termination`, the close of a terminated account's positions (docs/risk.md). Such a fill's order is a reduce-only MARKET with `client_id` null, closed at the mark as a taker.
             * @enum {string}
             */
            reason?: "liquidation" | "termination";
        };
        FillPage: {
            data: components["schemas"]["Fill"][];
            /** @description More rows match the bounds than `limit` returned. */
            has_more: boolean;
        };
        /** @description The fields every order record carries. */
        OrderFields: {
            order_id: components["schemas"]["Uuid"];
            account_id: components["schemas"]["Uuid"];
            client_id: string | null;
            symbol: components["schemas"]["Symbol"];
            side: components["schemas"]["Side"];
            kind: components["schemas"]["OrderKind"];
            quantity: number;
            filled_quantity: number;
            /** @description Average price of the fills, or `null` before the first fill. */
            avg_fill_price: number | null;
            /** @description LIMIT orders only; otherwise `null`. */
            limit_price: number | null;
            /** @description STOP and TAKE_PROFIT orders only; otherwise `null`. */
            trigger_price: number | null;
            time_in_force: components["schemas"]["TimeInForce"];
            /** @description GTD orders only; otherwise `null`. */
            expire_at: components["schemas"]["NullableTimestamp"];
            post_only: boolean;
            /** @description Always `true` for TP/SL children and closes. */
            reduce_only: boolean;
            /** @description A STOP/TAKE_PROFIT that triggers on the index price. */
            index_trigger: boolean;
            /** @description A STOP/TAKE_PROFIT that triggers on the mark price (the default for those kinds). */
            mark_trigger: boolean;
            venue: components["schemas"]["Venue"];
            /** @description The entry order of a TP/SL child, or `null`. */
            parent_order_id: components["schemas"]["NullableUuid"];
            /** @description The position the order targets, or `null`. */
            position_id: components["schemas"]["NullableUuid"];
            status: components["schemas"]["OrderStatus"];
            created_at: components["schemas"]["Timestamp"];
            updated_at: components["schemas"]["Timestamp"];
        };
        Order: components["schemas"]["OrderFields"];
        /** @description An order that can still fill. */
        WorkingOrder: {
            /** @enum {string} */
            status?: "HELD" | "NEW" | "PARTIALLY_FILLED";
        } & components["schemas"]["Order"];
        WorkingOrderList: {
            data: components["schemas"]["WorkingOrder"][];
        };
        /** @description The order placed with a `client_id`, in any state (zero or one). */
        ClientOrderList: {
            data: components["schemas"]["Order"][];
        };
        OrderPage: {
            data: components["schemas"]["Order"][];
            /** @description More rows match the bounds than `limit` returned. */
            has_more: boolean;
        };
        /** @description The orders a cancel-all canceled, in placement order. */
        CanceledOrderList: {
            data: ({
                /** @constant */
                status?: "CANCELED";
            } & components["schemas"]["Order"])[];
        };
        /** @description What a flatten did for one position. */
        FlattenClose: {
            position_id: components["schemas"]["Uuid"];
            symbol: components["schemas"]["Symbol"];
            venue: components["schemas"]["Venue"];
            /** @description The closing MARKET order (`FILLED`, `CANCELED` with its IOC rest, or `REJECTED`); null when none could be placed. */
            order: components["schemas"]["Order"] | null;
            fills: components["schemas"]["Fill"][];
            /** @description Why the closing order was rejected (`market_closed`, ...); empty otherwise. */
            violations: components["schemas"]["Violation"][];
            /** @description Why no closing order could be placed (the symbol has no price yet); empty otherwise. */
            issues: components["schemas"]["Issue"][];
            /**
             * @description The position's protective orders (working reduce-only orders on its symbol and venue) still working
             *     after the call, in placement order, as `GET /v1/account/{account_id}/orders` shows them: its close was
             *     rejected, partial or not placed, so they were not canceled. Empty when the close filled the position
             *     completely (they were canceled, and are in `canceled`) or a termination canceled them.
             */
            kept_orders: components["schemas"]["Order"][];
        };
        FlattenResponse: {
            /**
             * @description Every order working before the call that its step canceled, in the order canceled: those protecting
             *     no open position first, then the protective orders of each position its close filled completely.
             */
            canceled: components["schemas"]["Order"][];
            /** @description One entry per position open once the orders protecting none were canceled, oldest first. */
            closes: components["schemas"]["FlattenClose"][];
            /** @description The positions still open after the call (empty when the account is flat). */
            positions: components["schemas"]["Position"][];
        };
        PlaceOrderBatchRequest: {
            /**
             * @description Each item is judged as the body of `POST /v1/order`; an item that is not a valid one is answered in
             *     its place with that call's `400`, the others still placed.
             */
            orders: unknown[];
        };
        /** @description The answer `POST /v1/order` would have given to one order of the batch. */
        PlaceOrderBatchItem: {
            /**
             * @description The HTTP status `POST /v1/order` would have answered.
             * @enum {integer}
             */
            status: 200 | 201 | 400 | 404 | 409 | 500 | 503;
            /** @description Whether `POST /v1/order` would have answered `Idempotent-Replayed: true`. */
            replayed: boolean;
            body: components["schemas"]["AcceptedOrderResponse"] | components["schemas"]["OrderResponse"] | components["schemas"]["InvalidPayload"] | components["schemas"]["NotFound"] | components["schemas"]["ClientIdConflict"] | components["schemas"]["ParentFinalConflict"] | components["schemas"]["ReduceOnlyConflict"] | components["schemas"]["OrderLimitReached"] | components["schemas"]["EngineError"] | components["schemas"]["EngineUnavailable"];
        };
        PlaceOrderBatchResponse: {
            /** @description `data[i]` answers `orders[i]`. */
            data: components["schemas"]["PlaceOrderBatchItem"][];
        };
        /** @description One funding payment of one open position. */
        FundingPayment: {
            payment_id: components["schemas"]["Uuid"];
            /** @description The position that paid or received it. */
            position_id: components["schemas"]["Uuid"];
            symbol: components["schemas"]["Symbol"];
            asset_class: components["schemas"]["AssetClass"];
            /** @description The rate of the interval as a fraction of the notional (`0.0001` is 0.01%), signed like `amount`. */
            rate: number;
            /** @description USD; positive when received, negative when paid. */
            amount: number;
            paid_at: components["schemas"]["Timestamp"];
        };
        /** @description The sums of the payments of one asset class. */
        FundingByAssetClass: {
            asset_class: components["schemas"]["AssetClass"];
            /** @description USD; the sum of the positive amounts. */
            received: number;
            /** @description USD; the sum of the negative amounts, as a positive number. */
            paid: number;
            /** @description USD; `received − paid`, the sum of the amounts. */
            net: number;
        };
        FundingReport: {
            /** @description One row per asset class with payments. */
            by_asset_class: components["schemas"]["FundingByAssetClass"][];
            /** @description Every payment, oldest first. */
            data: components["schemas"]["FundingPayment"][];
        };
        /**
         * @description The rules the monitoring holds equity to: `daily_loss_limit` (the day's loss against
         *     `pct(starting_balance, daily_loss_pct)`) and `drawdown_gate` (equity against the drawdown floor).
         * @enum {string}
         */
        LimitRule: "daily_loss_limit" | "drawdown_gate";
        /** @description A breach level reached; each level once per rule per day. */
        Breach: {
            breach_id: components["schemas"]["Uuid"];
            rule: components["schemas"]["LimitRule"];
            /** @description `info` at 50% of the limit, `warning` at 80%, `critical` at 100%. */
            severity: components["schemas"]["Severity"];
            /** @description USD; the level, 50, 80 or 100% of the daily limit or of the drawdown allowance. */
            threshold: number;
            /** @description USD; the day's loss or the drawdown used when the level was reached (at least `threshold`). */
            value: number;
            message: string;
            occurred_at: components["schemas"]["Timestamp"];
        };
        BreachList: {
            data: components["schemas"]["Breach"][];
        };
        /**
         * @description A hard rule failure that terminated the account, or an exposure rule that refused the part of a resting
         *     order's fill that would have added exposure (the order was canceled with the rule as its reason).
         */
        ViolationRecord: {
            violation_id: components["schemas"]["Uuid"];
            /** @enum {string} */
            rule: "daily_loss_limit" | "drawdown_gate" | "news_freeze" | "exposure_cap" | "insufficient_margin" | "venue_not_allowed";
            /** @description USD; the limit, the daily limit or the drawdown allowance (0 for a refused fill). */
            threshold: number;
            /** @description USD; the day's loss or the drawdown used that reached it (0 for a refused fill). */
            value: number;
            message: string;
            occurred_at: components["schemas"]["Timestamp"];
        };
        ViolationRecordList: {
            data: components["schemas"]["ViolationRecord"][];
        };
        /** @description Open notional of one asset class on one venue. */
        Exposure: {
            asset_class: components["schemas"]["AssetClass"];
            venue: components["schemas"]["Venue"];
            /** @description USD; the open positions' quantity times the current mark price, long and short alike. */
            notional: number;
        };
        Analytics: {
            /** @description The share (a fraction, not a percent) of closed positions with net P&L above zero; `null` with none closed. */
            win_rate: number | null;
            /** @description The mean R multiple (realized P&L before fees and funding / initial risk) of the closed positions; `null` with none closed. */
            avg_r_multiple: number | null;
            /** @description The sum of the net wins over the absolute sum of the net losses; `null` with no losing position. */
            profit_factor: number | null;
            /** @description How many positions are closed. */
            closed_positions: number;
            /** @description One row per asset class and venue with open positions. */
            exposure: components["schemas"]["Exposure"][];
        };
        Violation: {
            rule: components["schemas"]["ViolationRule"];
            /** @description A rejection is always `critical`. */
            severity: components["schemas"]["Severity"];
            message: string;
        };
        /**
         * @example {
         *       "account_id": "1a6e9483-e71d-406d-b1da-30b5f84eba94",
         *       "symbol": "BTC-USD",
         *       "side": "BUY",
         *       "kind": "LIMIT",
         *       "quantity": "0.015",
         *       "limit_price": 95000,
         *       "client_id": "breakout-2026-11-22-1"
         *     }
         */
        PlaceOrderRequest: {
            /** @description One of the key user's accounts; another user's is `404`. */
            account_id: components["schemas"]["Uuid"];
            symbol: components["schemas"]["SymbolInput"];
            side: components["schemas"]["Side"];
            kind: components["schemas"]["OrderKind"];
            /** @description Base-asset quantity. */
            quantity: components["schemas"]["DecimalInput"];
            /** @description Required for LIMIT, refused otherwise. */
            limit_price?: components["schemas"]["OptionalDecimalInput"];
            /** @description Required for STOP and TAKE_PROFIT, refused otherwise. */
            trigger_price?: components["schemas"]["OptionalDecimalInput"];
            /** @description Default GTC, IOC for MARKET (which takes only IOC or FOK). */
            time_in_force?: components["schemas"]["TimeInForceInput"];
            /**
             * Format: date-time
             * @description Required with GTD and refused otherwise; an ISO 8601 date-time with a time zone, in the future.
             */
            expire_at?: string | null;
            /** @description Reject (`post_only_would_take`) instead of taking liquidity. Not with MARKET. */
            post_only?: components["schemas"]["FlagInput"];
            /** @description Only reduce the opposite position, never open, grow or flip one. */
            reduce_only?: components["schemas"]["FlagInput"];
            /** @description STOP/TAKE_PROFIT only; trigger on the index price. Not together with `mark_trigger`. */
            index_trigger?: components["schemas"]["FlagInput"];
            /** @description STOP/TAKE_PROFIT only; trigger on the mark price (the default). Not together with `index_trigger`. */
            mark_trigger?: components["schemas"]["FlagInput"];
            client_id?: components["schemas"]["ClientIdInput"];
            /** @description Overrides the account's default venue for this order; must be allowed by the plan and list the symbol. */
            venue?: components["schemas"]["VenueInput"];
            /** @description Makes this a TP/SL child of an entry order of the same symbol and venue and the opposite side. */
            parent_order_id?: components["schemas"]["NullableUuid"];
            /** @description The open position to target; fixes the venue. */
            position_id?: components["schemas"]["NullableUuid"];
        };
        /**
         * @example {
         *       "account_id": "1a6e9483-e71d-406d-b1da-30b5f84eba94",
         *       "symbol": "BTC-USD",
         *       "quantity": "0.005"
         *     }
         */
        ClosePositionRequest: {
            account_id: components["schemas"]["Uuid"];
            symbol: components["schemas"]["SymbolInput"];
            /** @description How much to close; default the whole position. */
            quantity?: components["schemas"]["OptionalDecimalInput"];
            /**
             * @description Default MARKET.
             * @enum {string|null}
             */
            kind?: "MARKET" | "LIMIT" | null;
            /** @description The limit price; required with LIMIT, refused with MARKET. */
            price?: components["schemas"]["OptionalDecimalInput"];
            /** @description MARKET takes IOC (default) or FOK; LIMIT takes GTC (default), GTX, IOC or FOK. Never GTD. */
            time_in_force?: components["schemas"]["TimeInForceInput"];
            client_id?: components["schemas"]["ClientIdInput"];
            /** @description The venue of the position, when it is open on several. */
            venue?: components["schemas"]["VenueInput"];
            /** @description The position to close. */
            position_id?: components["schemas"]["NullableUuid"];
        };
        /** @description At least one of the three, not `null`. */
        AmendOrderRequest: {
            trigger_price?: components["schemas"]["OptionalDecimalInput"];
            limit_price?: components["schemas"]["OptionalDecimalInput"];
            /** @description The new total quantity, above the filled quantity. */
            quantity?: components["schemas"]["OptionalDecimalInput"];
        } | {
            trigger_price: components["schemas"]["DecimalInput"];
        } | {
            limit_price: components["schemas"]["DecimalInput"];
        } | {
            quantity: components["schemas"]["DecimalInput"];
        };
        /** @description The answer of `POST /v1/order` and `POST /v1/position/close`. */
        OrderResponseFields: {
            order: components["schemas"]["Order"];
            /** @description The fills the order got at once, oldest first. */
            fills: components["schemas"]["Fill"][];
            violations: components["schemas"]["Violation"][];
            /**
             * @description The room under the plan's limits the order leaves (for a rejected order, would have left). A replay
             *     answers the original response, headroom included, as it was then; `null` only in the replay of an
             *     order placed before the service reported headroom.
             */
            risk_headroom: components["schemas"]["RiskHeadroom"] | null;
        };
        /**
         * @description The room under the account's plan limits the order leaves, in USD, each at least 0. It is computed as if
         *     the order were accepted, its opening fee paid and the exposure it adds counted, against the account as it
         *     was when the order was checked: for an accepted order the room it leaves, for a refused one the room it
         *     would have left (`0` on a limit it would break). Computed in 1e-8 USD units like the balance, with
         *     `pct(x, p)` = `x × p / 100` rounded to the unit.
         */
        RiskHeadroom: {
            /**
             * @description `limit − loss − fee`: what the account may still lose today. `limit = pct(starting_balance,
             *     daily_loss_pct)`; `loss = max(0, day_start_equity − equity)`, realized and unrealized, fees and funding
             *     included; `fee` the taker fee the order pays on the exposure it adds (0 for reduce-only orders). The
             *     day resets at the plan's
             *     `daily_reset` (`00:00Z`): the first event at or after it (a price update, an order, a funding payment)
             *     makes `day_start_equity` the equity at that moment.
             */
            daily_loss_remaining: number;
            /**
             * @description `equity − fee − floor`: how far equity may fall before the drawdown floor. Static plans:
             *     `floor = starting_balance − pct(starting_balance, max_drawdown_pct)`. Trailing plans:
             *     `floor = min(high_water_mark − pct(starting_balance, max_drawdown_pct), starting_balance)`, where the
             *     high-water mark follows equity up at every price update, fill and funding payment and never falls
             *     (intraday trailing), and the floor stops trailing once it reaches the starting balance.
             */
            drawdown_remaining: number;
            /**
             * @description `max_symbol_notional − exposure of the order's symbol with the order`. A symbol's exposure is the
             *     largest its position could become if every working order that can add exposure filled:
             *     `max(|P + B|, |P − S|)`, with `P` the signed notional of its positions at the mark (long positive, both
             *     venues together) and `B`, `S` the notional of its working BUY and SELL orders that are not reduce-only,
             *     each at its own price (limit, trigger, or the mark).
             */
            symbol_exposure_remaining: number;
            /** @description `max_total_notional − total exposure with the order`, the total being the sum of every symbol's exposure. */
            total_exposure_remaining: number;
        };
        /** @description The answer of `POST /v1/order/test`. */
        OrderTestResponse: {
            /** @description What `POST /v1/order` would refuse the order with now (the first rule that refuses); empty when it would be accepted. */
            violations: components["schemas"]["Violation"][];
            risk_headroom: components["schemas"]["RiskHeadroom"];
        };
        /** @description A new order that passed the risk checks. */
        AcceptedOrderResponse: {
            /** @description The room the order leaves (its fee paid, the exposure it adds counted). */
            risk_headroom: unknown;
            order?: {
                /** @enum {string} */
                status?: "HELD" | "NEW" | "PARTIALLY_FILLED" | "FILLED" | "CANCELED" | "EXPIRED";
            };
            violations?: unknown[];
        } & WithRequired<components["schemas"]["OrderResponseFields"], "risk_headroom">;
        /** @description A rejected order, kept for audit; it never works. */
        RejectedOrderResponse: {
            /** @description The room the order would have left had it been accepted (`0` on the limit it breaks). */
            risk_headroom: unknown;
            order?: {
                /** @constant */
                status?: "REJECTED";
            };
            fills?: unknown[];
            violations?: unknown[];
        } & WithRequired<components["schemas"]["OrderResponseFields"], "risk_headroom">;
        /** @description An accepted order (only ever as a replay under `200`) or a rejected one. */
        OrderResponse: components["schemas"]["AcceptedOrderResponse"] | components["schemas"]["RejectedOrderResponse"];
        OrderReply: {
            order: components["schemas"]["Order"];
        };
        CanceledOrderReply: {
            order: {
                /** @constant */
                status?: "CANCELED";
            } & components["schemas"]["Order"];
        };
        ClientIdConflict: {
            /** @constant */
            error: "conflict";
            client_id: string;
            /** @description The order the `client_id` was first used for. */
            order_id: components["schemas"]["Uuid"];
        };
        AccountLimitReached: {
            /** @constant */
            error: "account_limit_reached";
            /** @description The most accounts one user may hold (`ENGINE_MAX_ACCOUNTS_PER_USER`, default 100). */
            limit: number;
        };
        OrderLimitReached: {
            /** @constant */
            error: "order_limit_reached";
            /** @description The most working orders one account may hold (`ENGINE_MAX_WORKING_ORDERS`, default 200). */
            limit: number;
        };
        ParentFinalConflict: {
            /** @constant */
            error: "conflict";
            /** @constant */
            reason: "parent_final";
            /** @description The parent, final without any fill. */
            order_id: components["schemas"]["Uuid"];
        };
        ReduceOnlyConflict: {
            /** @constant */
            error: "conflict";
            /** @constant */
            reason: "reduce_only_would_increase";
        };
        OrderFinalConflict: {
            /** @constant */
            error: "conflict";
            /** @constant */
            reason: "order_final";
            order: {
                /** @enum {string} */
                status?: "FILLED" | "CANCELED" | "REJECTED" | "EXPIRED";
            } & components["schemas"]["Order"];
        };
        /** @description An order_final conflict for an order that is not `CANCELED` (cancelling that one answers `200`). */
        CancelFinalConflict: {
            order?: {
                /** @enum {string} */
                status?: "FILLED" | "REJECTED" | "EXPIRED";
            };
        } & components["schemas"]["OrderFinalConflict"];
        AmendMarginConflict: {
            /** @constant */
            error: "conflict";
            /** @constant */
            reason: "insufficient_margin";
            order_id: components["schemas"]["Uuid"];
        };
        AmendRiskConflict: {
            /** @constant */
            error: "conflict";
            /** @enum {string} */
            reason: "drawdown_gate" | "daily_loss_limit" | "news_freeze" | "exposure_cap";
            order_id: components["schemas"]["Uuid"];
            violations: components["schemas"]["Violation"][];
        };
        /**
         * @description `order.ack`: an order was accepted or rejected. `order.fill`: an order filled (partly or in full).
         *     `order.cancel`: a working order was canceled or expired. `position.close`: a fill closed a position (it
         *     follows that fill's `order.fill`). `account.breach`: a breach level was recorded. `account.passed`: the
         *     account reached its profit target on its balance, flat (it follows the `position.close` of the fill that
         *     left it flat). `account.cancel_after`: the dead-man's switch fired (it follows the `order.cancel` of each
         *     order it canceled).
         * @enum {string}
         */
        WebhookType: "order.ack" | "order.fill" | "order.cancel" | "position.close" | "account.breach" | "account.passed" | "account.cancel_after";
        /** @description The fields of every webhook event, whatever its `type`. */
        WebhookEnvelopeFields: {
            /** @description The event's id, sent as `webhook-id`; the same in every delivery and retry of the event. */
            id: components["schemas"]["Uuid"];
            type: components["schemas"]["WebhookType"];
            /** @description When the event happened (the time of the state change). */
            created_at: components["schemas"]["Timestamp"];
            account_id: components["schemas"]["Uuid"];
            /** @description The key the event is delivered to; in `GET .../events`, the calling key. */
            api_key_id: components["schemas"]["Uuid"];
            /** @description The event's number in the account, from 1, by one, in the order the events happened. */
            sequence: number;
            /** @description The record the event is about, as the REST API shows it; its schema depends on `type`. */
            data: Record<string, never>;
        };
        /**
         * @description The body of a call that reads none, when one is sent.
         * @example {}
         */
        EmptyBody: Record<string, never>;
        /** @description 0 disarms; 1,000 to 86,400,000 (24 h) arms or re-arms with the deadline that far from now. */
        CancelAfterTimeout: number | 0 | unknown;
        /**
         * @example {
         *       "timeout_ms": 60000
         *     }
         */
        CancelAfterRequest: {
            timeout_ms: components["schemas"]["CancelAfterTimeout"];
        };
        /**
         * @description The dead-man's switch of an account (docs/risk.md, "Cancel-after").
         * @example {
         *       "account_id": "1a6e9483-e71d-406d-b1da-30b5f84eba94",
         *       "armed": true,
         *       "timeout_ms": 60000,
         *       "deadline": "2026-11-22T14:06:00.000Z"
         *     }
         * @example {
         *       "account_id": "1a6e9483-e71d-406d-b1da-30b5f84eba94",
         *       "armed": false,
         *       "timeout_ms": null,
         *       "deadline": null
         *     }
         */
        CancelAfter: {
            account_id: components["schemas"]["Uuid"];
            armed: boolean;
            /** @description The timeout it was last armed with; `null` when disarmed. */
            timeout_ms: number | null;
            /** @description When it fires unless re-armed or disarmed before; `null` when disarmed. */
            deadline: components["schemas"]["NullableTimestamp"];
        };
        AccountTerminatedConflict: {
            /** @constant */
            error: "conflict";
            /** @constant */
            reason: "account_terminated";
        };
        /** @description One order the switch canceled or kept. */
        CancelAfterOrderFields: {
            order_id: components["schemas"]["Uuid"];
            client_id: string | null;
            symbol: string;
            venue: components["schemas"]["Venue"];
            /** @enum {string} */
            side: "BUY" | "SELL";
            /** @enum {string} */
            kind: "MARKET" | "LIMIT" | "STOP" | "TAKE_PROFIT";
            reduce_only: boolean;
            parent_order_id: components["schemas"]["Uuid"] | null;
            /**
             * @description `CANCELED` in `canceled`; the order's working status in `kept`.
             * @enum {string}
             */
            status: "NEW" | "PARTIALLY_FILLED" | "HELD" | "CANCELED";
        };
        /**
         * @description `account.cancel_after` data: the switch fired. `canceled` lists the orders it canceled, in placement order
         *     (their `order.cancel` events come before this one), each with its `reason` (`cancel_after`, or
         *     `parent_canceled` for the children of a canceled parent without fills); `kept` the working orders it
         *     kept, in placement order: the reduce-only orders that protect an open position. The switch is disarmed.
         */
        CancelAfterFired: {
            account_id: components["schemas"]["Uuid"];
            timeout_ms: number;
            deadline: components["schemas"]["Timestamp"];
            /** @description When the engine acted on it (at or after `deadline`; later when the engine was down then). */
            fired_at: components["schemas"]["Timestamp"];
            canceled: ({
                /** @enum {string} */
                reason: "cancel_after" | "parent_canceled" | "oco" | "reduce_only_no_position";
            } & components["schemas"]["CancelAfterOrderFields"])[];
            kept: components["schemas"]["CancelAfterOrderFields"][];
        };
        /**
         * @description One webhook event: the JSON body of a delivery and an item of `GET /v1/account/{account_id}/events`.
         *     `data` by `type`:
         *
         *     - `order.ack`: the order right after it was accepted (`NEW` or `HELD`; a MARKET order's fills follow) or
         *       rejected (`REJECTED`), with the `violations` it was refused for (empty when accepted).
         *     - `order.fill`: the fill, as `GET .../trades` lists it.
         *     - `order.cancel`: the order, `CANCELED` or `EXPIRED`, with the `reason`.
         *     - `position.close`: the closed position, as `GET .../positions/history` lists it.
         *     - `account.breach`: the breach, as `GET .../breaches` lists it.
         *     - `account.passed`: the account, as `GET /v1/account/{account_id}` shows it, `PASSED`.
         *     - `account.cancel_after`: the dead-man's switch fired: what it canceled and what it kept.
         * @example {
         *       "id": "0b7f6a3e-4f1c-4c55-9d8e-2f0c1a7e5b21",
         *       "type": "order.fill",
         *       "created_at": "2026-11-22T14:05:00.123Z",
         *       "account_id": "1a6e9483-e71d-406d-b1da-30b5f84eba94",
         *       "api_key_id": "5d1e2b7c-8a4f-4e3b-9c6d-0f1a2b3c4d5e",
         *       "sequence": 2,
         *       "data": {
         *         "fill_id": "7c2d9e10-3b4a-4f5e-8d6c-1a2b3c4d5e6f",
         *         "order_id": "9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b",
         *         "account_id": "1a6e9483-e71d-406d-b1da-30b5f84eba94",
         *         "client_id": "breakout-2026-11-22-1",
         *         "symbol": "BTC-USD",
         *         "side": "BUY",
         *         "quantity": 0.015,
         *         "price": 95000,
         *         "fee": 0.855,
         *         "liquidity": "TAKER",
         *         "venue": "GMX",
         *         "realized_pnl": 0,
         *         "executed_at": "2026-11-22T14:05:00.123Z"
         *       }
         *     }
         */
        WebhookEnvelope: components["schemas"]["OrderAckEvent"] | components["schemas"]["OrderFillEvent"] | components["schemas"]["OrderCancelEvent"] | components["schemas"]["PositionCloseEvent"] | components["schemas"]["AccountBreachEvent"] | components["schemas"]["AccountPassedEvent"] | components["schemas"]["AccountCancelAfterEvent"];
        OrderAckEvent: {
            /** @constant */
            type?: "order.ack";
            data?: components["schemas"]["AckedOrder"];
        } & components["schemas"]["WebhookEnvelopeFields"];
        OrderFillEvent: {
            /** @constant */
            type?: "order.fill";
            data?: components["schemas"]["Fill"];
        } & components["schemas"]["WebhookEnvelopeFields"];
        OrderCancelEvent: {
            /** @constant */
            type?: "order.cancel";
            data?: components["schemas"]["CanceledOrder"];
        } & components["schemas"]["WebhookEnvelopeFields"];
        PositionCloseEvent: {
            /** @constant */
            type?: "position.close";
            data?: components["schemas"]["ClosedPosition"];
        } & components["schemas"]["WebhookEnvelopeFields"];
        AccountBreachEvent: {
            /** @constant */
            type?: "account.breach";
            data?: components["schemas"]["Breach"];
        } & components["schemas"]["WebhookEnvelopeFields"];
        AccountPassedEvent: {
            /** @constant */
            type?: "account.passed";
            data?: components["schemas"]["PassedAccount"];
        } & components["schemas"]["WebhookEnvelopeFields"];
        AccountCancelAfterEvent: {
            /** @constant */
            type?: "account.cancel_after";
            data?: components["schemas"]["CancelAfterFired"];
        } & components["schemas"]["WebhookEnvelopeFields"];
        /** @description `order.ack` data: the order as it was accepted or rejected, with the `violations` of a rejection. */
        AckedOrder: {
            /** @description Why the order was rejected (its status is then `REJECTED`); empty when it was accepted. */
            violations: components["schemas"]["Violation"][];
        } & components["schemas"]["OrderFields"];
        /** @description `order.cancel` data: the order in its final state, with the reason it ended. */
        CanceledOrder: {
            /** @enum {string} */
            status?: "CANCELED" | "EXPIRED";
            /**
             * @description `CANCELED` orders: `user` (`DELETE /v1/order/{order_id}`), `risk` (the account was terminated),
             *     `parent_canceled` (its entry order was canceled without fills), `oco` (its TP/SL sibling filled),
             *     `ioc_remainder` (the unfilled rest of an IOC order), `reduce_only_no_position` (nothing left to
             *     reduce), `cancel_after` (the account's dead-man's switch fired), or the exposure rule that refused
             *     the part of a fill that would have added exposure (`drawdown_gate`, `daily_loss_limit`, `news_freeze`,
             *     `exposure_cap`, `insufficient_margin`, `venue_not_allowed`; docs/risk.md). `EXPIRED` orders: `gtd` (`expire_at` passed), `fok` (a FOK order
             *     could not fill in full).
             * @enum {string}
             */
            reason: "user" | "risk" | "parent_canceled" | "oco" | "ioc_remainder" | "reduce_only_no_position" | "cancel_after" | "drawdown_gate" | "daily_loss_limit" | "news_freeze" | "exposure_cap" | "insufficient_margin" | "venue_not_allowed" | "gtd" | "fok";
        } & components["schemas"]["OrderFields"];
        /** @description `account.passed` data: the account when it reached its profit target. */
        PassedAccount: {
            /** @constant */
            state?: "PASSED";
        } & components["schemas"]["Account"];
        WebhookEventPage: {
            /** @description The events after `after`, by `sequence`. */
            data: components["schemas"]["WebhookEnvelope"][];
            /** @description More events follow the last one listed. */
            has_more: boolean;
        };
        /**
         * @description `pending`: waiting for its first attempt or a retry (at `nextAttemptAt`). `succeeded`: the receiver
         *     answered `2xx`. `failed`: the last attempt of the retry schedule failed too. `disabled`: the receiver
         *     answered `410 Gone` to it or to another delivery of the key, which disabled the key's webhook.
         *     `canceled`: ended without a further attempt because the key was revoked or expired or its webhook disabled.
         * @enum {string}
         */
        DeliveryStatus: "pending" | "succeeded" | "failed" | "disabled" | "canceled";
        /** @description One attempt to deliver an event. */
        DeliveryAttempt: {
            /** @description 1 for the first attempt, then one more for each. */
            attempt: number;
            startedAt: components["schemas"]["Timestamp"];
            /** @description The receiver's HTTP status, or `null` when there was no answer (connection, TLS or timeout). */
            statusCode: number | null;
            /**
             * @description `null` for a `2xx`; `HTTP <status>` for another answer; otherwise what failed (for example
             *     `connect ECONNREFUSED 127.0.0.1:443`, or `refused: ...` for a target that resolves to a non-public
             *     address).
             */
            error: string | null;
            /** @description Milliseconds from the start of the attempt to the answer or the failure. */
            latencyMs: number;
        };
        /** @description One event to one key's webhook URL. */
        Delivery: {
            deliveryId: components["schemas"]["Uuid"];
            /** @description The event's `id` (the `webhook-id` of every attempt). */
            eventId: components["schemas"]["Uuid"];
            eventType: components["schemas"]["WebhookType"];
            accountId: components["schemas"]["Uuid"];
            /** @description The event's `sequence` in its account. */
            sequence: number;
            /** @description The key's `webhookUrl` when the delivery was created. */
            url: string;
            status: components["schemas"]["DeliveryStatus"];
            /** @description Attempts made so far. */
            attempts: number;
            /** @description When the next attempt is due while `pending`; `null` otherwise. */
            nextAttemptAt: components["schemas"]["NullableTimestamp"];
            /** @description The last attempt's `statusCode`; `null` before the first attempt or when it got no answer. */
            lastStatusCode: number | null;
            /** @description The last attempt's `error` (a generic text, never an address or resolver error; docs/webhooks.md, "Security"), or why the delivery ended without one (`canceled`, `disabled`); `null` otherwise. */
            lastError: string | null;
            /** @description The last attempt's `latencyMs`; `null` before the first attempt. */
            lastLatencyMs: number | null;
            createdAt: components["schemas"]["Timestamp"];
            updatedAt: components["schemas"]["Timestamp"];
            /** @description Every attempt, oldest first. */
            attemptLog: components["schemas"]["DeliveryAttempt"][];
        };
        DeliveryPage: {
            /** @description Newest first. */
            deliveries: components["schemas"]["Delivery"][];
            /** @description More deliveries follow the last one listed. */
            hasMore: boolean;
        };
        Redelivery: {
            delivery: {
                /** @constant */
                status?: "pending";
                nextAttemptAt?: string;
            } & components["schemas"]["Delivery"];
        };
        Health: {
            /** @constant */
            status: "ok";
        };
        Ready: {
            /** @constant */
            status: "ready";
        };
        NotReady: {
            /** @constant */
            status: "not_ready";
        };
        StreamLimitReached: {
            /** @constant */
            error: "stream_limit_reached";
            /** @description The most sockets per key on one gateway (`STREAM_MAX_SOCKETS_PER_KEY`). */
            limit: number;
        };
        /** @description Any `id` the client put on the operation, echoed on its answer. */
        StreamId: string | number;
        /**
         * @description A client message of `GET /v1/stream`. `channel` defaults to `account`. `after`: the last `sequence`
         *     received (0: every event); absent: from now on. Tickers: `symbols` as `GET /v1/tickers` names them
         *     (in any spelling requests accept, `btcusd`, `BTC/USD`, `btc-usd`; a bare base is unknown), at most 200;
         *     empty or absent: every symbol.
         */
        StreamOp: {
            /** @enum {unknown} */
            op: "subscribe";
            /** @constant */
            channel?: "account";
            account_id: components["schemas"]["Uuid"];
            after?: number;
            id?: components["schemas"]["StreamId"];
        } | {
            /** @enum {unknown} */
            op: "unsubscribe";
            /** @constant */
            channel?: "account";
            account_id: components["schemas"]["Uuid"];
            id?: components["schemas"]["StreamId"];
        } | {
            /** @enum {unknown} */
            op: "subscribe" | "unsubscribe";
            /** @constant */
            channel: "tickers";
            symbols?: string[];
            id?: components["schemas"]["StreamId"];
        } | {
            /** @constant */
            op: "ping";
            id?: components["schemas"]["StreamId"];
        } | components["schemas"]["StreamTradingOp"];
        /**
         * @description A trading operation (docs/streaming.md, "Order entry"): `args` is the input of the REST route named with each
         *     `op`, the ids its path carries (`order_id`, `account_id`) included as fields. A malformed id in `args` is
         *     `404 not_found`, as it is in a path.
         */
        StreamTradingOp: {
            /** @enum {unknown} */
            op: "order.place" | "order.test";
            id?: components["schemas"]["StreamId"];
            args: components["schemas"]["PlaceOrderRequest"];
        } | {
            /** @constant */
            op: "order.cancel";
            id?: components["schemas"]["StreamId"];
            args: {
                order_id: components["schemas"]["Uuid"];
            };
        } | {
            /** @constant */
            op: "order.amend";
            id?: components["schemas"]["StreamId"];
            /** @description At least one of the three prices and quantity, as in `AmendOrderRequest`. */
            args: {
                order_id: components["schemas"]["Uuid"];
                trigger_price?: components["schemas"]["OptionalDecimalInput"];
                limit_price?: components["schemas"]["OptionalDecimalInput"];
                quantity?: components["schemas"]["OptionalDecimalInput"];
            };
        } | {
            /** @constant */
            op: "position.close";
            id?: components["schemas"]["StreamId"];
            args: components["schemas"]["ClosePositionRequest"];
        } | {
            /** @constant */
            op: "orders.batch";
            id?: components["schemas"]["StreamId"];
            args: components["schemas"]["PlaceOrderBatchRequest"];
        } | {
            /** @enum {unknown} */
            op: "orders.cancel_all" | "account.flatten";
            id?: components["schemas"]["StreamId"];
            args: {
                account_id: components["schemas"]["Uuid"];
                symbol?: string;
            };
        } | {
            /** @constant */
            op: "cancel_after.set";
            id?: components["schemas"]["StreamId"];
            args: {
                account_id: components["schemas"]["Uuid"];
                timeout_ms: components["schemas"]["CancelAfterTimeout"];
            };
        };
        /**
         * @description The answer to a trading operation: the status and body its REST route answers for the same input (the
         *     route's response schema for that status, errors included). `replayed: true` where REST sends
         *     `Idempotent-Replayed: true` (a replayed `client_id`); `retry_after_ms` where REST sends `Retry-After` (a
         *     `503`). Past 256 operations waiting on the socket an operation is answered at once `429` with
         *     `{"error":"rate_limited","reason":"too_many_pending_operations","queued":256}`.
         */
        StreamTradingAnswer: {
            /** @enum {unknown} */
            op: "order.place" | "order.test" | "order.cancel" | "order.amend" | "position.close" | "orders.batch" | "orders.cancel_all" | "account.flatten" | "cancel_after.set";
            id?: components["schemas"]["StreamId"];
            /** @description The REST status (200, 201, 400, 403, 404, 409, 422, 429, 503, …). */
            status: number;
            /** @constant */
            replayed?: true;
            retry_after_ms?: number;
            /** @description The REST response body. */
            body: Record<string, never>;
        };
        /**
         * @description The answer to a successful operation. An account `subscribed` carries the `after` the events start after
         *     (the one asked for, or the account's last `sequence` when none was); every later message of the account
         *     is an event with a greater `sequence`. A tickers ack lists the subscribed symbols (`["*"]`: every symbol).
         */
        StreamAck: {
            /** @enum {unknown} */
            op: "subscribed" | "unsubscribed" | "pong";
            id?: components["schemas"]["StreamId"];
            account_id?: components["schemas"]["Uuid"];
            after?: number;
            /** @constant */
            channel?: "tickers";
            symbols?: string[];
        };
        /**
         * @description A refused operation (the registry's `error` and its fields, as the REST body would carry them), or a
         *     subscription that ended (its catch-up read failed, `engine_unavailable`: subscribe again with `after`
         *     the last `sequence` received, given here as `after` when there was one). The socket stays open.
         */
        StreamError: {
            /** @constant */
            op: "error";
            /** @enum {unknown} */
            error: "invalid_payload" | "not_found" | "conflict" | "rate_limited" | "unauthorized" | "engine_error" | "engine_unavailable";
            id?: components["schemas"]["StreamId"];
            account_id?: components["schemas"]["Uuid"];
            /** @constant */
            channel?: "tickers";
            issues?: components["schemas"]["Issue"][];
            /**
             * @description For `conflict`, `already_subscribed` or `too_many_subscriptions` (with `limit`).
             * @enum {unknown}
             */
            reason?: "already_subscribed" | "too_many_subscriptions";
            limit?: number;
            retry_after_ms?: number;
            queued?: number;
            after?: number;
        };
        /** @description A ticker's current prices and market hours, as `GET /v1/tickers` lists it, sent on each change. */
        StreamTicker: {
            /** @constant */
            channel: "tickers";
            /** @constant */
            type: "ticker";
            data: components["schemas"]["Ticker"];
        };
        /** @description A message of the gateway on `GET /v1/stream`. */
        StreamServerMessage: components["schemas"]["StreamAck"] | components["schemas"]["StreamError"] | components["schemas"]["StreamTradingAnswer"] | components["schemas"]["WebhookEnvelope"] | components["schemas"]["StreamTicker"];
        Issue: {
            /** @description The failed field, dotted for nested fields and array items (`permissions.1`); `""` for the whole body. */
            path: string;
            message: string;
        };
        InvalidPayload: {
            /** @constant */
            error: "invalid_payload";
            issues: components["schemas"]["Issue"][];
        };
        Unauthorized: {
            /** @constant */
            error: "unauthorized";
        };
        IpNotWhitelisted: {
            /** @constant */
            error: "IP not whitelisted for this API key";
        };
        /** @description The key lacks a scope the operation requires. */
        PermissionDenied: {
            /** @constant */
            error: "permission_denied";
            /**
             * @description The scope the operation requires (its `x-required-scope` on `/v1`; the `permission` asked for on
             *     `POST /api/api-keys/validate`). A key holding it, or a scope that grants it, is allowed: `TRADE` is
             *     also granted by `MANAGE_ORDERS`.
             * @enum {unknown}
             */
            required_scope: "READ_ONLY" | "TRADE" | "MANAGE_ORDERS";
            /** @description The same in words, e.g. `this key lacks the MANAGE_ORDERS scope`. */
            message: string;
        };
        NotFound: {
            /** @constant */
            error: "not_found";
        };
        KeyLimitReached: {
            /** @constant */
            error: "key_limit_reached";
            /**
             * @description The maximum number of active keys per user.
             * @constant
             */
            limit: 10;
        };
        RateLimited: {
            /** @constant */
            error: "rate_limited";
            /** @description Milliseconds until the key may send again. */
            retry_after_ms: number;
        };
        EngineError: {
            /** @constant */
            error: "engine_error";
        };
        EngineUnavailable: {
            /** @constant */
            error: "engine_unavailable";
        };
        WalletError: {
            /** @constant */
            error: "wallet_error";
        };
        WalletUnavailable: {
            /** @constant */
            error: "wallet_unavailable";
        };
        RateLimiterUnavailable: {
            /** @constant */
            error: "rate_limiter_unavailable";
        };
        Overloaded: {
            /** @constant */
            error: "overloaded";
            /** @description Milliseconds to wait before sending the request again (jittered to spread the retries). */
            retry_after_ms: number;
        };
    };
    responses: {
        /** @description The request failed validation; one issue per failed field. */
        InvalidPayload: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["InvalidPayload"];
            };
        };
        /** @description The request body is over 64 KiB. */
        PayloadTooLarge: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["InvalidPayload"];
            };
        };
        /** @description `X-User-Id` is missing or empty, or the admin token is required and missing or wrong. */
        Unauthorized: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Unauthorized"];
            };
        };
        /** @description No active key with this id belongs to the caller (unknown, malformed, another user's, revoked or expired). */
        KeyNotFound: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["NotFound"];
            };
        };
        /** @description An internal fault behind the key-management listener. Safe to retry. */
        WalletError: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["WalletError"];
            };
        };
        /**
         * @description The wallet, or its database, did not answer in time (`WALLET_DB_TIMEOUT_MS`, `GRPC_DEADLINE_MS`; about
         *     1.5 s at most). Safe to retry after `Retry-After` seconds; a create answered this way may or may not have
         *     made the key: list the keys before creating another.
         */
        WalletUnavailable: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                "Retry-After": components["headers"]["Retry-After-Unavailable"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["WalletUnavailable"];
            };
        };
        /**
         * @description The wallet (which checks the key) or the engine (which keeps the delivery log), or the database of either,
         *     did not answer in time; the code names which. Safe to retry after `Retry-After` seconds.
         */
        DeliveryLogUnavailable: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                "Retry-After": components["headers"]["Retry-After-Unavailable"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["WalletUnavailable"] | components["schemas"]["EngineUnavailable"];
            };
        };
        /**
         * @description `X-API-Key` or `X-API-Secret` is missing, or the key is unknown, revoked or expired, or the secret
         *     does not match. Not counted against any rate limit, so no RateLimit headers.
         */
        V1Unauthorized: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Unauthorized"];
            };
        };
        /** @description The request's source IP is not in the key's `ipWhitelist`. Counted against the key's rate limit. */
        V1IpNotWhitelisted: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                RateLimit: components["headers"]["RateLimit"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["IpNotWhitelisted"];
            };
        };
        /**
         * @description The key already had its 1,200 accepted requests in the last 60 s (with the RateLimit headers); or the
         *     client address (an IPv6 address: its /64) failed authentication 30 times in 60 s (`AUTH_FAILURE_LIMIT`,
         *     `AUTH_FAILURE_WINDOW_MS`; across every gateway when they share Redis) with keys this gateway had not seen
         *     authenticate, and the request was refused before its key was
         *     checked (no RateLimit headers: no key was counted). Wait `Retry-After` seconds (`retry_after_ms` is
         *     exact); refused requests do not count, nor do requests answered `503`.
         */
        V1RateLimited: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                /** @description As on every answer to an authenticated key; absent when the address was refused. */
                "RateLimit-Policy"?: string;
                /** @description As on every answer to an authenticated key; absent when the address was refused. */
                RateLimit?: string;
                "Retry-After": components["headers"]["Retry-After"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["RateLimited"];
            };
        };
        /** @description An internal fault. Safe to retry. */
        V1EngineError: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                RateLimit: components["headers"]["RateLimit"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["EngineError"];
            };
        };
        /**
         * @description `engine_unavailable`: the engine process that owns the account's partition (or, for calls about no
         *     account, every engine) is down or does not hold its partition lease (docs/scale-out.md), or it or its
         *     database did not answer in time (`ENGINE_DB_TIMEOUT_MS`, `GRPC_DEADLINE_MS`; about 1.5 s at most).
         *     `wallet_unavailable`: the key had to be validated by the wallet, which did not answer in time (no
         *     RateLimit headers then: the key was not counted). `rate_limiter_unavailable`: the shared rate limiter
         *     (Redis) cannot be reached or did not answer within 500 ms, so the key could not be counted (no RateLimit
         *     headers; nothing reached the engine). Safe to retry after `Retry-After` seconds, with the same
         *     `client_id` for orders: a write answered `engine_unavailable` may or may not have happened (a command
         *     still queued in the engine when the gateway's deadline passed is dropped undecided: docs/engine.md,
         *     "Deadlines").
         *     `overloaded`: the gateway is serving all it can and shed the request before doing anything for it
         *     (docs/overload.md): nothing was authenticated, counted against the key or sent to the engine, so any
         *     request, an order without `client_id` included, is safe to send again after `retry_after_ms` (exact,
         *     with jitter; `Retry-After` is it rounded up to seconds). Answered within milliseconds of its arrival
         *     (at most `ADMISSION_QUEUE_TIMEOUT_MS`, 25 ms, of waiting for a slot while the gateway is overloaded;
         *     `ADMISSION_BURST_TIMEOUT_MS`, 500 ms, for a burst that reached an idle gateway). Requests that reduce risk (cancels,
         *     cancel-all, flatten, closes) are admitted first.
         */
        V1EngineUnavailable: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                /** @description As on every answer to a counted key; present with `engine_unavailable`, absent with `wallet_unavailable`, `rate_limiter_unavailable` and `overloaded`. */
                "RateLimit-Policy"?: string;
                /** @description As on every answer to a counted key; present with `engine_unavailable`, absent with `wallet_unavailable`, `rate_limiter_unavailable` and `overloaded`. */
                RateLimit?: string;
                "Retry-After": components["headers"]["Retry-After-Unavailable"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["EngineUnavailable"] | components["schemas"]["WalletUnavailable"] | components["schemas"]["RateLimiterUnavailable"] | components["schemas"]["Overloaded"];
            };
        };
        /** @description The request failed validation; one issue per failed field. Counted against the key's rate limit. */
        V1InvalidPayload: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                RateLimit: components["headers"]["RateLimit"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["InvalidPayload"];
            };
        };
        /** @description The request body is over 64 KiB. Counted against the key's rate limit. */
        V1PayloadTooLarge: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                RateLimit: components["headers"]["RateLimit"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["InvalidPayload"];
            };
        };
        /**
         * @description The request's source IP is not in the key's `ipWhitelist`, or the key lacks the operation's scope
         *     (`permission_denied`, with the scope in `required_scope`: the operation's `x-required-scope`). Counted
         *     against the key's rate limit.
         */
        V1Forbidden: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                RateLimit: components["headers"]["RateLimit"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["IpNotWhitelisted"] | components["schemas"]["PermissionDenied"];
            };
        };
        /**
         * @description No such account, order or position among the key user's: unknown, malformed, or another user's (never
         *     `403`, so the API does not reveal what exists).
         */
        V1NotFound: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                RateLimit: components["headers"]["RateLimit"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["NotFound"];
            };
        };
    };
    parameters: {
        /**
         * @description Your id for this request, echoed in the `X-Request-Id` response header and written to the
         *     gateway's logs. A value outside 1 to 128 printable ASCII characters is replaced by a fresh UUID.
         */
        RequestId: string;
        /** @description The key's `id` (a UUID), one of the caller's active keys. Any other value is `404`. */
        KeyId: string;
        /**
         * @description The account's `account_id` (a UUID). An account of another user is `404`, exactly like an unknown id
         *     or a value that is not a UUID: the API never tells whether an account exists.
         */
        AccountId: string;
        /** @description Inclusive lower bound, an ISO 8601 date-time with a time zone (`2026-11-22T00:00:00Z`). Absent means from the first row. */
        From: string;
        /** @description Inclusive upper bound, an ISO 8601 date-time with a time zone; not before `from`. Absent means up to now. */
        To: string;
        /** @description The most rows to return, a whole number of at least 1. Values above 1000 are clamped to 1000. */
        Limit: number;
        /**
         * @description The cursor of the next page: the last row's id (`fill_id` of a fill, `position_id` of a closed
         *     position, `order_id` of an order), with `from` set to that row's time. The page starts strictly after that (time, id) pair:
         *     rows at that time with a greater id, then every row at a later time. Ids compare in lower case. Not a
         *     UUID, or given without `from`: `400` with an issue on `after_id`.
         */
        AfterId: string;
    };
    requestBodies: never;
    headers: {
        /** @description The caller's `X-Request-Id` when it was acceptable, otherwise a fresh UUID. */
        "X-Request-Id": string;
        /** @description `<limit>;w=<window in seconds>`: `1200;w=60` by default (`RATE_LIMIT_MAX`, `RATE_LIMIT_WINDOW_MS`). */
        "RateLimit-Policy": string;
        /**
         * @description `limit=<limit>, remaining=<accepted requests left>, reset=<seconds until the oldest counted request
         *     leaves the window>`, as of when the request was accepted (after any hold). On a `503` it is the same
         *     count, the request itself included: its units are given back as the answer is sent, and the key's next
         *     answer shows them in `remaining`.
         */
        RateLimit: string;
        /** @description Whole seconds (at least 1) until the key may send again. */
        "Retry-After": string;
        /** @description Whole seconds (at least 1) to wait before retrying a service that did not answer. */
        "Retry-After-Unavailable": string;
        /**
         * @description `true` when the answer replays the original answer to a repeated `client_id` (equal normalised body);
         *     absent on every other answer.
         */
        "Idempotent-Replayed": "true";
    };
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    listApiKeys: {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description Your id for this request, echoed in the `X-Request-Id` response header and written to the
                 *     gateway's logs. A value outside 1 to 128 printable ASCII characters is replaced by a fresh UUID.
                 */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The active keys of the user named by `X-User-Id`. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiKeyList"];
                };
            };
            401: components["responses"]["Unauthorized"];
            500: components["responses"]["WalletError"];
            503: components["responses"]["WalletUnavailable"];
        };
    };
    createApiKey: {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description Your id for this request, echoed in the `X-Request-Id` response header and written to the
                 *     gateway's logs. A value outside 1 to 128 printable ASCII characters is replaced by a fresh UUID.
                 */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateApiKeyRequest"];
            };
        };
        responses: {
            /** @description The key was created. `key`, `secret` and `webhookSecret` are shown this once. */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CreateApiKeyResponse"];
                };
            };
            400: components["responses"]["InvalidPayload"];
            401: components["responses"]["Unauthorized"];
            /** @description The user already has 10 active keys. Revoke one first. */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["KeyLimitReached"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            500: components["responses"]["WalletError"];
            503: components["responses"]["WalletUnavailable"];
        };
    };
    revokeApiKey: {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description Your id for this request, echoed in the `X-Request-Id` response header and written to the
                 *     gateway's logs. A value outside 1 to 128 printable ASCII characters is replaced by a fresh UUID.
                 */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                /** @description The key's `id` (a UUID). Any other value is `404`. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The key is revoked. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RevokedApiKey"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description No active key with this id belongs to the caller (unknown, another user's, already revoked, or expired). */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NotFound"];
                };
            };
            500: components["responses"]["WalletError"];
            503: components["responses"]["WalletUnavailable"];
        };
    };
    validateApiKey: {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description Your id for this request, echoed in the `X-Request-Id` response header and written to the
                 *     gateway's logs. A value outside 1 to 128 printable ASCII characters is replaced by a fresh UUID.
                 */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ValidateApiKeyRequest"];
            };
        };
        responses: {
            /** @description The key is active, the secret matches, the IP is allowed and the scope is covered. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidateApiKeyResponse"];
                };
            };
            400: components["responses"]["InvalidPayload"];
            401: components["responses"]["Unauthorized"];
            /** @description The IP is not in the key's `ipWhitelist`, or the key lacks the requested scope. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["IpNotWhitelisted"] | components["schemas"]["PermissionDenied"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            500: components["responses"]["WalletError"];
            503: components["responses"]["WalletUnavailable"];
        };
    };
    listDeliveries: {
        parameters: {
            query?: {
                /** @description The most deliveries to return, a whole number from 1 to 200. Anything else is `400`. */
                limit?: number;
                /**
                 * @description The `deliveryId` of the last delivery of the previous page: the page goes on after it. Anything but the
                 *     id of one of this key's deliveries is `400`.
                 */
                before?: string;
            };
            header?: {
                /**
                 * @description Your id for this request, echoed in the `X-Request-Id` response header and written to the
                 *     gateway's logs. A value outside 1 to 128 printable ASCII characters is replaced by a fresh UUID.
                 */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                /** @description The key's `id` (a UUID), one of the caller's active keys. Any other value is `404`. */
                id: components["parameters"]["KeyId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of the key's deliveries (possibly none). */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DeliveryPage"];
                };
            };
            400: components["responses"]["InvalidPayload"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["KeyNotFound"];
            500: components["responses"]["WalletError"];
            503: components["responses"]["DeliveryLogUnavailable"];
        };
    };
    redeliver: {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description Your id for this request, echoed in the `X-Request-Id` response header and written to the
                 *     gateway's logs. A value outside 1 to 128 printable ASCII characters is replaced by a fresh UUID.
                 */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                /** @description The key's `id` (a UUID), one of the caller's active keys. Any other value is `404`. */
                id: components["parameters"]["KeyId"];
                /** @description The delivery's `deliveryId` (a UUID), one of this key's. Any other value is `404`. */
                delivery_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The delivery, `pending` and due now. */
            202: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Redelivery"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /**
             * @description No active key with this id belongs to the caller, or the key has no delivery with this id (unknown,
             *     malformed, or another key's).
             */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NotFound"];
                };
            };
            500: components["responses"]["WalletError"];
            503: components["responses"]["DeliveryLogUnavailable"];
        };
    };
    listTickers: {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description Your id for this request, echoed in the `X-Request-Id` response header and written to the
                 *     gateway's logs. A value outside 1 to 128 printable ASCII characters is replaced by a fresh UUID.
                 */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The catalogue. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TickerList"];
                };
            };
            401: components["responses"]["V1Unauthorized"];
            403: components["responses"]["V1IpNotWhitelisted"];
            429: components["responses"]["V1RateLimited"];
            500: components["responses"]["V1EngineError"];
            503: components["responses"]["V1EngineUnavailable"];
        };
    };
    listPlans: {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description Your id for this request, echoed in the `X-Request-Id` response header and written to the
                 *     gateway's logs. A value outside 1 to 128 printable ASCII characters is replaced by a fresh UUID.
                 */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The plan catalogue. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PlanList"];
                };
            };
            401: components["responses"]["V1Unauthorized"];
            403: components["responses"]["V1IpNotWhitelisted"];
            429: components["responses"]["V1RateLimited"];
            500: components["responses"]["V1EngineError"];
            503: components["responses"]["V1EngineUnavailable"];
        };
    };
    getCalendar: {
        parameters: {
            query?: {
                /** @description Inclusive lower bound on `scheduled_at`, an ISO 8601 date-time with a time zone. Absent means unbounded. */
                from?: string;
                /** @description Inclusive upper bound on `scheduled_at`. Absent means unbounded. */
                to?: string;
                /** @description Only events that concern this symbol, named directly or through its asset class (`BTCUSD`, `btc-usd` and `BTC-USD` are the same). */
                symbol?: string;
            };
            header?: {
                /**
                 * @description Your id for this request, echoed in the `X-Request-Id` response header and written to the
                 *     gateway's logs. A value outside 1 to 128 printable ASCII characters is replaced by a fresh UUID.
                 */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The matching events. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Calendar"];
                };
            };
            400: components["responses"]["V1InvalidPayload"];
            401: components["responses"]["V1Unauthorized"];
            403: components["responses"]["V1IpNotWhitelisted"];
            429: components["responses"]["V1RateLimited"];
            500: components["responses"]["V1EngineError"];
            503: components["responses"]["V1EngineUnavailable"];
        };
    };
    createAccount: {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description Your id for this request, echoed in the `X-Request-Id` response header and written to the
                 *     gateway's logs. A value outside 1 to 128 printable ASCII characters is replaced by a fresh UUID.
                 */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateAccountRequest"];
            };
        };
        responses: {
            /** @description The account was opened. */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Account"];
                };
            };
            400: components["responses"]["V1InvalidPayload"];
            401: components["responses"]["V1Unauthorized"];
            403: components["responses"]["V1Forbidden"];
            /** @description The user already holds the most accounts allowed. */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AccountLimitReached"];
                };
            };
            413: components["responses"]["V1PayloadTooLarge"];
            429: components["responses"]["V1RateLimited"];
            500: components["responses"]["V1EngineError"];
            503: components["responses"]["V1EngineUnavailable"];
        };
    };
    getAccount: {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description Your id for this request, echoed in the `X-Request-Id` response header and written to the
                 *     gateway's logs. A value outside 1 to 128 printable ASCII characters is replaced by a fresh UUID.
                 */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                /**
                 * @description The account's `account_id` (a UUID). An account of another user is `404`, exactly like an unknown id
                 *     or a value that is not a UUID: the API never tells whether an account exists.
                 */
                account_id: components["parameters"]["AccountId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The account. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Account"];
                };
            };
            400: components["responses"]["V1InvalidPayload"];
            401: components["responses"]["V1Unauthorized"];
            403: components["responses"]["V1IpNotWhitelisted"];
            404: components["responses"]["V1NotFound"];
            429: components["responses"]["V1RateLimited"];
            500: components["responses"]["V1EngineError"];
            503: components["responses"]["V1EngineUnavailable"];
        };
    };
    getAccountSummary: {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description Your id for this request, echoed in the `X-Request-Id` response header and written to the
                 *     gateway's logs. A value outside 1 to 128 printable ASCII characters is replaced by a fresh UUID.
                 */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                /**
                 * @description The account's `account_id` (a UUID). An account of another user is `404`, exactly like an unknown id
                 *     or a value that is not a UUID: the API never tells whether an account exists.
                 */
                account_id: components["parameters"]["AccountId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The snapshot. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AccountSummary"];
                };
            };
            400: components["responses"]["V1InvalidPayload"];
            401: components["responses"]["V1Unauthorized"];
            403: components["responses"]["V1IpNotWhitelisted"];
            404: components["responses"]["V1NotFound"];
            429: components["responses"]["V1RateLimited"];
            500: components["responses"]["V1EngineError"];
            503: components["responses"]["V1EngineUnavailable"];
        };
    };
    listPositions: {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description Your id for this request, echoed in the `X-Request-Id` response header and written to the
                 *     gateway's logs. A value outside 1 to 128 printable ASCII characters is replaced by a fresh UUID.
                 */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                /**
                 * @description The account's `account_id` (a UUID). An account of another user is `404`, exactly like an unknown id
                 *     or a value that is not a UUID: the API never tells whether an account exists.
                 */
                account_id: components["parameters"]["AccountId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The open positions (possibly none). */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PositionList"];
                };
            };
            400: components["responses"]["V1InvalidPayload"];
            401: components["responses"]["V1Unauthorized"];
            403: components["responses"]["V1IpNotWhitelisted"];
            404: components["responses"]["V1NotFound"];
            429: components["responses"]["V1RateLimited"];
            500: components["responses"]["V1EngineError"];
            503: components["responses"]["V1EngineUnavailable"];
        };
    };
    listPositionHistory: {
        parameters: {
            query?: {
                /** @description Inclusive lower bound, an ISO 8601 date-time with a time zone (`2026-11-22T00:00:00Z`). Absent means from the first row. */
                from?: components["parameters"]["From"];
                /** @description Inclusive upper bound, an ISO 8601 date-time with a time zone; not before `from`. Absent means up to now. */
                to?: components["parameters"]["To"];
                /** @description The most rows to return, a whole number of at least 1. Values above 1000 are clamped to 1000. */
                limit?: components["parameters"]["Limit"];
                /**
                 * @description The cursor of the next page: the last row's id (`fill_id` of a fill, `position_id` of a closed
                 *     position, `order_id` of an order), with `from` set to that row's time. The page starts strictly after that (time, id) pair:
                 *     rows at that time with a greater id, then every row at a later time. Ids compare in lower case. Not a
                 *     UUID, or given without `from`: `400` with an issue on `after_id`.
                 */
                after_id?: components["parameters"]["AfterId"];
            };
            header?: {
                /**
                 * @description Your id for this request, echoed in the `X-Request-Id` response header and written to the
                 *     gateway's logs. A value outside 1 to 128 printable ASCII characters is replaced by a fresh UUID.
                 */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                /**
                 * @description The account's `account_id` (a UUID). An account of another user is `404`, exactly like an unknown id
                 *     or a value that is not a UUID: the API never tells whether an account exists.
                 */
                account_id: components["parameters"]["AccountId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of closed positions. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ClosedPositionPage"];
                };
            };
            400: components["responses"]["V1InvalidPayload"];
            401: components["responses"]["V1Unauthorized"];
            403: components["responses"]["V1IpNotWhitelisted"];
            404: components["responses"]["V1NotFound"];
            429: components["responses"]["V1RateLimited"];
            500: components["responses"]["V1EngineError"];
            503: components["responses"]["V1EngineUnavailable"];
        };
    };
    listTrades: {
        parameters: {
            query?: {
                /** @description Inclusive lower bound, an ISO 8601 date-time with a time zone (`2026-11-22T00:00:00Z`). Absent means from the first row. */
                from?: components["parameters"]["From"];
                /** @description Inclusive upper bound, an ISO 8601 date-time with a time zone; not before `from`. Absent means up to now. */
                to?: components["parameters"]["To"];
                /** @description The most rows to return, a whole number of at least 1. Values above 1000 are clamped to 1000. */
                limit?: components["parameters"]["Limit"];
                /**
                 * @description The cursor of the next page: the last row's id (`fill_id` of a fill, `position_id` of a closed
                 *     position, `order_id` of an order), with `from` set to that row's time. The page starts strictly after that (time, id) pair:
                 *     rows at that time with a greater id, then every row at a later time. Ids compare in lower case. Not a
                 *     UUID, or given without `from`: `400` with an issue on `after_id`.
                 */
                after_id?: components["parameters"]["AfterId"];
            };
            header?: {
                /**
                 * @description Your id for this request, echoed in the `X-Request-Id` response header and written to the
                 *     gateway's logs. A value outside 1 to 128 printable ASCII characters is replaced by a fresh UUID.
                 */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                /**
                 * @description The account's `account_id` (a UUID). An account of another user is `404`, exactly like an unknown id
                 *     or a value that is not a UUID: the API never tells whether an account exists.
                 */
                account_id: components["parameters"]["AccountId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of fills. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FillPage"];
                };
            };
            400: components["responses"]["V1InvalidPayload"];
            401: components["responses"]["V1Unauthorized"];
            403: components["responses"]["V1IpNotWhitelisted"];
            404: components["responses"]["V1NotFound"];
            429: components["responses"]["V1RateLimited"];
            500: components["responses"]["V1EngineError"];
            503: components["responses"]["V1EngineUnavailable"];
        };
    };
    listWorkingOrders: {
        parameters: {
            query?: {
                /**
                 * @description Look up the order placed with this `client_id` instead (1 to 64 printable ASCII characters, as in
                 *     `POST /v1/order`; anything else, or the parameter given twice, is `400`).
                 */
                client_id?: string;
            };
            header?: {
                /**
                 * @description Your id for this request, echoed in the `X-Request-Id` response header and written to the
                 *     gateway's logs. A value outside 1 to 128 printable ASCII characters is replaced by a fresh UUID.
                 */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                /**
                 * @description The account's `account_id` (a UUID). An account of another user is `404`, exactly like an unknown id
                 *     or a value that is not a UUID: the API never tells whether an account exists.
                 */
                account_id: components["parameters"]["AccountId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The working orders (possibly none), or the order of the `client_id` (zero or one). */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WorkingOrderList"] | components["schemas"]["ClientOrderList"];
                };
            };
            400: components["responses"]["V1InvalidPayload"];
            401: components["responses"]["V1Unauthorized"];
            403: components["responses"]["V1IpNotWhitelisted"];
            404: components["responses"]["V1NotFound"];
            429: components["responses"]["V1RateLimited"];
            500: components["responses"]["V1EngineError"];
            503: components["responses"]["V1EngineUnavailable"];
        };
    };
    cancelAllOrders: {
        parameters: {
            query?: {
                /**
                 * @description Look up the order placed with this `client_id` instead (1 to 64 printable ASCII characters, as in
                 *     `POST /v1/order`; anything else, or the parameter given twice, is `400`).
                 */
                client_id?: string;
                /** @description Only this symbol's orders (as `POST /v1/order` reads a symbol); every symbol when absent. */
                symbol?: string;
            };
            header?: {
                /**
                 * @description Your id for this request, echoed in the `X-Request-Id` response header and written to the
                 *     gateway's logs. A value outside 1 to 128 printable ASCII characters is replaced by a fresh UUID.
                 */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                /**
                 * @description The account's `account_id` (a UUID). An account of another user is `404`, exactly like an unknown id
                 *     or a value that is not a UUID: the API never tells whether an account exists.
                 */
                account_id: components["parameters"]["AccountId"];
            };
            cookie?: never;
        };
        /** @description None, or an empty JSON object; a body with any field is `400` and nothing is done. */
        requestBody?: {
            content: {
                "application/json": components["schemas"]["EmptyBody"];
            };
        };
        responses: {
            /** @description The orders this call canceled (possibly none). */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CanceledOrderList"];
                };
            };
            400: components["responses"]["V1InvalidPayload"];
            401: components["responses"]["V1Unauthorized"];
            403: components["responses"]["V1Forbidden"];
            404: components["responses"]["V1NotFound"];
            413: components["responses"]["V1PayloadTooLarge"];
            429: components["responses"]["V1RateLimited"];
            500: components["responses"]["V1EngineError"];
            503: components["responses"]["V1EngineUnavailable"];
        };
    };
    listOrderHistory: {
        parameters: {
            query?: {
                /** @description Inclusive lower bound, an ISO 8601 date-time with a time zone (`2026-11-22T00:00:00Z`). Absent means from the first row. */
                from?: components["parameters"]["From"];
                /** @description Inclusive upper bound, an ISO 8601 date-time with a time zone; not before `from`. Absent means up to now. */
                to?: components["parameters"]["To"];
                /** @description The most rows to return, a whole number of at least 1. Values above 1000 are clamped to 1000. */
                limit?: components["parameters"]["Limit"];
                /**
                 * @description The cursor of the next page: the last row's id (`fill_id` of a fill, `position_id` of a closed
                 *     position, `order_id` of an order), with `from` set to that row's time. The page starts strictly after that (time, id) pair:
                 *     rows at that time with a greater id, then every row at a later time. Ids compare in lower case. Not a
                 *     UUID, or given without `from`: `400` with an issue on `after_id`.
                 */
                after_id?: components["parameters"]["AfterId"];
            };
            header?: {
                /**
                 * @description Your id for this request, echoed in the `X-Request-Id` response header and written to the
                 *     gateway's logs. A value outside 1 to 128 printable ASCII characters is replaced by a fresh UUID.
                 */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                /**
                 * @description The account's `account_id` (a UUID). An account of another user is `404`, exactly like an unknown id
                 *     or a value that is not a UUID: the API never tells whether an account exists.
                 */
                account_id: components["parameters"]["AccountId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of orders. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OrderPage"];
                };
            };
            400: components["responses"]["V1InvalidPayload"];
            401: components["responses"]["V1Unauthorized"];
            403: components["responses"]["V1IpNotWhitelisted"];
            404: components["responses"]["V1NotFound"];
            429: components["responses"]["V1RateLimited"];
            500: components["responses"]["V1EngineError"];
            503: components["responses"]["V1EngineUnavailable"];
        };
    };
    flattenAccount: {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description Your id for this request, echoed in the `X-Request-Id` response header and written to the
                 *     gateway's logs. A value outside 1 to 128 printable ASCII characters is replaced by a fresh UUID.
                 */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                /**
                 * @description The account's `account_id` (a UUID). An account of another user is `404`, exactly like an unknown id
                 *     or a value that is not a UUID: the API never tells whether an account exists.
                 */
                account_id: components["parameters"]["AccountId"];
            };
            cookie?: never;
        };
        /** @description None, or an empty JSON object; a body with any field is `400` and nothing is done. */
        requestBody?: {
            content: {
                "application/json": components["schemas"]["EmptyBody"];
            };
        };
        responses: {
            /** @description What was canceled and closed, and what is still open. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FlattenResponse"];
                };
            };
            400: components["responses"]["V1InvalidPayload"];
            401: components["responses"]["V1Unauthorized"];
            403: components["responses"]["V1Forbidden"];
            404: components["responses"]["V1NotFound"];
            413: components["responses"]["V1PayloadTooLarge"];
            429: components["responses"]["V1RateLimited"];
            500: components["responses"]["V1EngineError"];
            503: components["responses"]["V1EngineUnavailable"];
        };
    };
    listFunding: {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description Your id for this request, echoed in the `X-Request-Id` response header and written to the
                 *     gateway's logs. A value outside 1 to 128 printable ASCII characters is replaced by a fresh UUID.
                 */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                /**
                 * @description The account's `account_id` (a UUID). An account of another user is `404`, exactly like an unknown id
                 *     or a value that is not a UUID: the API never tells whether an account exists.
                 */
                account_id: components["parameters"]["AccountId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The payments (possibly none) and their sums per asset class. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FundingReport"];
                };
            };
            400: components["responses"]["V1InvalidPayload"];
            401: components["responses"]["V1Unauthorized"];
            403: components["responses"]["V1IpNotWhitelisted"];
            404: components["responses"]["V1NotFound"];
            429: components["responses"]["V1RateLimited"];
            500: components["responses"]["V1EngineError"];
            503: components["responses"]["V1EngineUnavailable"];
        };
    };
    listBreaches: {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description Your id for this request, echoed in the `X-Request-Id` response header and written to the
                 *     gateway's logs. A value outside 1 to 128 printable ASCII characters is replaced by a fresh UUID.
                 */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                /**
                 * @description The account's `account_id` (a UUID). An account of another user is `404`, exactly like an unknown id
                 *     or a value that is not a UUID: the API never tells whether an account exists.
                 */
                account_id: components["parameters"]["AccountId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The breaches (possibly none). */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BreachList"];
                };
            };
            400: components["responses"]["V1InvalidPayload"];
            401: components["responses"]["V1Unauthorized"];
            403: components["responses"]["V1IpNotWhitelisted"];
            404: components["responses"]["V1NotFound"];
            429: components["responses"]["V1RateLimited"];
            500: components["responses"]["V1EngineError"];
            503: components["responses"]["V1EngineUnavailable"];
        };
    };
    listViolations: {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description Your id for this request, echoed in the `X-Request-Id` response header and written to the
                 *     gateway's logs. A value outside 1 to 128 printable ASCII characters is replaced by a fresh UUID.
                 */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                /**
                 * @description The account's `account_id` (a UUID). An account of another user is `404`, exactly like an unknown id
                 *     or a value that is not a UUID: the API never tells whether an account exists.
                 */
                account_id: components["parameters"]["AccountId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The violations (none while the account is not terminated). */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ViolationRecordList"];
                };
            };
            400: components["responses"]["V1InvalidPayload"];
            401: components["responses"]["V1Unauthorized"];
            403: components["responses"]["V1IpNotWhitelisted"];
            404: components["responses"]["V1NotFound"];
            429: components["responses"]["V1RateLimited"];
            500: components["responses"]["V1EngineError"];
            503: components["responses"]["V1EngineUnavailable"];
        };
    };
    getAnalytics: {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description Your id for this request, echoed in the `X-Request-Id` response header and written to the
                 *     gateway's logs. A value outside 1 to 128 printable ASCII characters is replaced by a fresh UUID.
                 */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                /**
                 * @description The account's `account_id` (a UUID). An account of another user is `404`, exactly like an unknown id
                 *     or a value that is not a UUID: the API never tells whether an account exists.
                 */
                account_id: components["parameters"]["AccountId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The statistics. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Analytics"];
                };
            };
            400: components["responses"]["V1InvalidPayload"];
            401: components["responses"]["V1Unauthorized"];
            403: components["responses"]["V1IpNotWhitelisted"];
            404: components["responses"]["V1NotFound"];
            429: components["responses"]["V1RateLimited"];
            500: components["responses"]["V1EngineError"];
            503: components["responses"]["V1EngineUnavailable"];
        };
    };
    listEvents: {
        parameters: {
            query?: {
                /**
                 * @description List the events whose `sequence` is greater than this, a whole number of at least 0 (the last `sequence`
                 *     you have). Absent means from the first event.
                 */
                after?: number;
                /** @description The most events to return, a whole number of at least 1. Values above 1000 are clamped to 1000. */
                limit?: number;
            };
            header?: {
                /**
                 * @description Your id for this request, echoed in the `X-Request-Id` response header and written to the
                 *     gateway's logs. A value outside 1 to 128 printable ASCII characters is replaced by a fresh UUID.
                 */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                /**
                 * @description The account's `account_id` (a UUID). An account of another user is `404`, exactly like an unknown id
                 *     or a value that is not a UUID: the API never tells whether an account exists.
                 */
                account_id: components["parameters"]["AccountId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of events (possibly none). */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookEventPage"];
                };
            };
            400: components["responses"]["V1InvalidPayload"];
            401: components["responses"]["V1Unauthorized"];
            403: components["responses"]["V1IpNotWhitelisted"];
            404: components["responses"]["V1NotFound"];
            429: components["responses"]["V1RateLimited"];
            500: components["responses"]["V1EngineError"];
            503: components["responses"]["V1EngineUnavailable"];
        };
    };
    getCancelAfter: {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description Your id for this request, echoed in the `X-Request-Id` response header and written to the
                 *     gateway's logs. A value outside 1 to 128 printable ASCII characters is replaced by a fresh UUID.
                 */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                /**
                 * @description The account's `account_id` (a UUID). An account of another user is `404`, exactly like an unknown id
                 *     or a value that is not a UUID: the API never tells whether an account exists.
                 */
                account_id: components["parameters"]["AccountId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The switch. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CancelAfter"];
                };
            };
            401: components["responses"]["V1Unauthorized"];
            403: components["responses"]["V1IpNotWhitelisted"];
            404: components["responses"]["V1NotFound"];
            429: components["responses"]["V1RateLimited"];
            500: components["responses"]["V1EngineError"];
            503: components["responses"]["V1EngineUnavailable"];
        };
    };
    setCancelAfter: {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description Your id for this request, echoed in the `X-Request-Id` response header and written to the
                 *     gateway's logs. A value outside 1 to 128 printable ASCII characters is replaced by a fresh UUID.
                 */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                /**
                 * @description The account's `account_id` (a UUID). An account of another user is `404`, exactly like an unknown id
                 *     or a value that is not a UUID: the API never tells whether an account exists.
                 */
                account_id: components["parameters"]["AccountId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CancelAfterRequest"];
            };
        };
        responses: {
            /** @description The switch after the call, armed or disarmed. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CancelAfter"];
                };
            };
            400: components["responses"]["V1InvalidPayload"];
            401: components["responses"]["V1Unauthorized"];
            403: components["responses"]["V1Forbidden"];
            404: components["responses"]["V1NotFound"];
            /** @description The account is terminated; nothing can be armed on it. */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AccountTerminatedConflict"];
                };
            };
            413: components["responses"]["V1PayloadTooLarge"];
            429: components["responses"]["V1RateLimited"];
            500: components["responses"]["V1EngineError"];
            503: components["responses"]["V1EngineUnavailable"];
        };
    };
    placeOrder: {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description Your id for this request, echoed in the `X-Request-Id` response header and written to the
                 *     gateway's logs. A value outside 1 to 128 printable ASCII characters is replaced by a fresh UUID.
                 */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PlaceOrderRequest"];
            };
        };
        responses: {
            /**
             * @description Either the original answer to a repeated `client_id` (with `Idempotent-Replayed: true`), or a risk
             *     rejection: the order `REJECTED`, no fills, at least one violation.
             */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OrderResponse"];
                };
            };
            /** @description A new order, past the risk checks (`violations` empty). */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AcceptedOrderResponse"];
                };
            };
            400: components["responses"]["V1InvalidPayload"];
            401: components["responses"]["V1Unauthorized"];
            403: components["responses"]["V1Forbidden"];
            404: components["responses"]["V1NotFound"];
            /** @description The `client_id` was used for a different body, the parent is final, a reduce-only order has nothing to reduce, or the account holds the most working orders allowed. */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ClientIdConflict"] | components["schemas"]["ParentFinalConflict"] | components["schemas"]["ReduceOnlyConflict"] | components["schemas"]["OrderLimitReached"];
                };
            };
            413: components["responses"]["V1PayloadTooLarge"];
            429: components["responses"]["V1RateLimited"];
            500: components["responses"]["V1EngineError"];
            503: components["responses"]["V1EngineUnavailable"];
        };
    };
    testOrder: {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description Your id for this request, echoed in the `X-Request-Id` response header and written to the
                 *     gateway's logs. A value outside 1 to 128 printable ASCII characters is replaced by a fresh UUID.
                 */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PlaceOrderRequest"];
            };
        };
        responses: {
            /** @description The violations the order would get now (empty if it would be accepted) and the headroom. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OrderTestResponse"];
                };
            };
            400: components["responses"]["V1InvalidPayload"];
            401: components["responses"]["V1Unauthorized"];
            403: components["responses"]["V1Forbidden"];
            404: components["responses"]["V1NotFound"];
            /** @description The parent is final without any fill, or a reduce-only order has nothing to reduce. */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ParentFinalConflict"] | components["schemas"]["ReduceOnlyConflict"];
                };
            };
            413: components["responses"]["V1PayloadTooLarge"];
            429: components["responses"]["V1RateLimited"];
            500: components["responses"]["V1EngineError"];
            503: components["responses"]["V1EngineUnavailable"];
        };
    };
    getOrder: {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description Your id for this request, echoed in the `X-Request-Id` response header and written to the
                 *     gateway's logs. A value outside 1 to 128 printable ASCII characters is replaced by a fresh UUID.
                 */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                /** @description The order's `order_id` (a UUID). An order of another user, an unknown id or a value that is not a UUID is `404`. */
                order_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The order as it is now. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OrderReply"];
                };
            };
            401: components["responses"]["V1Unauthorized"];
            403: components["responses"]["V1IpNotWhitelisted"];
            404: components["responses"]["V1NotFound"];
            429: components["responses"]["V1RateLimited"];
            500: components["responses"]["V1EngineError"];
            503: components["responses"]["V1EngineUnavailable"];
        };
    };
    cancelOrder: {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description Your id for this request, echoed in the `X-Request-Id` response header and written to the
                 *     gateway's logs. A value outside 1 to 128 printable ASCII characters is replaced by a fresh UUID.
                 */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                /** @description The order's `order_id` (a UUID). An order of another user, an unknown id or a value that is not a UUID is `404`. */
                order_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The order, `CANCELED`. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CanceledOrderReply"];
                };
            };
            401: components["responses"]["V1Unauthorized"];
            403: components["responses"]["V1Forbidden"];
            404: components["responses"]["V1NotFound"];
            /** @description The order is `FILLED`, `REJECTED` or `EXPIRED`; it is answered as it is. */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CancelFinalConflict"];
                };
            };
            429: components["responses"]["V1RateLimited"];
            500: components["responses"]["V1EngineError"];
            503: components["responses"]["V1EngineUnavailable"];
        };
    };
    amendOrder: {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description Your id for this request, echoed in the `X-Request-Id` response header and written to the
                 *     gateway's logs. A value outside 1 to 128 printable ASCII characters is replaced by a fresh UUID.
                 */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                /** @description The order's `order_id` (a UUID). An order of another user, an unknown id or a value that is not a UUID is `404`. */
                order_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["AmendOrderRequest"];
            };
        };
        responses: {
            /** @description The order after the amendment (and whatever executed at once). */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OrderReply"];
                };
            };
            400: components["responses"]["V1InvalidPayload"];
            401: components["responses"]["V1Unauthorized"];
            403: components["responses"]["V1Forbidden"];
            404: components["responses"]["V1NotFound"];
            /** @description The order is final, the amendment needs more margin than is available, or it breaks a risk rule. */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OrderFinalConflict"] | components["schemas"]["AmendMarginConflict"] | components["schemas"]["AmendRiskConflict"];
                };
            };
            413: components["responses"]["V1PayloadTooLarge"];
            429: components["responses"]["V1RateLimited"];
            500: components["responses"]["V1EngineError"];
            503: components["responses"]["V1EngineUnavailable"];
        };
    };
    closePosition: {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description Your id for this request, echoed in the `X-Request-Id` response header and written to the
                 *     gateway's logs. A value outside 1 to 128 printable ASCII characters is replaced by a fresh UUID.
                 */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ClosePositionRequest"];
            };
        };
        responses: {
            /** @description The original answer to a repeated `client_id` (with `Idempotent-Replayed: true`), or a rejection. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OrderResponse"];
                };
            };
            /** @description A new reduce-only order, past the risk checks. */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AcceptedOrderResponse"];
                };
            };
            400: components["responses"]["V1InvalidPayload"];
            401: components["responses"]["V1Unauthorized"];
            403: components["responses"]["V1Forbidden"];
            404: components["responses"]["V1NotFound"];
            /** @description The `client_id` was used for a different body. */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ClientIdConflict"];
                };
            };
            413: components["responses"]["V1PayloadTooLarge"];
            429: components["responses"]["V1RateLimited"];
            500: components["responses"]["V1EngineError"];
            503: components["responses"]["V1EngineUnavailable"];
        };
    };
    placeOrderBatch: {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description Your id for this request, echoed in the `X-Request-Id` response header and written to the
                 *     gateway's logs. A value outside 1 to 128 printable ASCII characters is replaced by a fresh UUID.
                 */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PlaceOrderBatchRequest"];
            };
        };
        responses: {
            /** @description One answer per order, in the order given. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PlaceOrderBatchResponse"];
                };
            };
            400: components["responses"]["V1InvalidPayload"];
            401: components["responses"]["V1Unauthorized"];
            403: components["responses"]["V1Forbidden"];
            413: components["responses"]["V1PayloadTooLarge"];
            429: components["responses"]["V1RateLimited"];
            500: components["responses"]["V1EngineError"];
            503: components["responses"]["V1EngineUnavailable"];
        };
    };
    openStream: {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description Your id for this request, echoed in the `X-Request-Id` response header and written to the
                 *     gateway's logs. A value outside 1 to 128 printable ASCII characters is replaced by a fresh UUID.
                 */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Switching to the WebSocket protocol. */
            101: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["V1InvalidPayload"];
            401: components["responses"]["V1Unauthorized"];
            403: components["responses"]["V1IpNotWhitelisted"];
            /** @description The key already holds `STREAM_MAX_SOCKETS_PER_KEY` sockets on this gateway. */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StreamLimitReached"];
                };
            };
            429: components["responses"]["V1RateLimited"];
            500: components["responses"]["V1EngineError"];
            503: components["responses"]["V1EngineUnavailable"];
        };
    };
    getHealth: {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description Your id for this request, echoed in the `X-Request-Id` response header and written to the
                 *     gateway's logs. A value outside 1 to 128 printable ASCII characters is replaced by a fresh UUID.
                 */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Alive. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Health"];
                };
            };
        };
    };
    getReadiness: {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description Your id for this request, echoed in the `X-Request-Id` response header and written to the
                 *     gateway's logs. A value outside 1 to 128 printable ASCII characters is replaced by a fresh UUID.
                 */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Ready to serve. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Ready"];
                };
            };
            /** @description A dependency is unreachable; take this replica out of rotation. */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NotReady"];
                };
            };
        };
    };
    getMetrics: {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description Your id for this request, echoed in the `X-Request-Id` response header and written to the
                 *     gateway's logs. A value outside 1 to 128 printable ASCII characters is replaced by a fresh UUID.
                 */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Prometheus text exposition format 0.0.4. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
        };
    };
}
type WithRequired<T, K extends keyof T> = T & {
    [P in K]-?: T[P];
};
