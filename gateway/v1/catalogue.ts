// GET /v1/tickers, GET /v1/plans and GET /v1/calendar: the engine's catalogue and news calendar, passed
// through as snake_case JSON.
import type { RequestHandler } from "express";
import type { Clients } from "../clients.js";
import { originOf } from "../http/trace.js";
import { parse } from "../http/validation.js";
import { CalendarQuery } from "./schemas.js";

export function listTickers(clients: Clients): RequestHandler {
  return async (_req, res) => {
    const reply = await clients.engine.listTickers(originOf(res));
    res.status(200).json({
      data: reply.data.map((t) => ({
        symbol: t.symbol,
        base: t.base,
        quote: t.quote,
        asset_class: t.asset_class,
        venues: t.venues,
        max_leverage: t.max_leverage,
        tick_size: t.tick_size,
        quantity_step: t.quantity_step,
        min_quantity: t.min_quantity,
        mark_price: t.mark_price ?? null,
        index_price: t.index_price ?? null,
        market_open: t.market_open,
      })),
    });
  };
}

export function listPlans(clients: Clients): RequestHandler {
  return async (_req, res) => {
    const reply = await clients.engine.listPlans(originOf(res));
    res.status(200).json({
      data: reply.data.map((p) => ({
        plan_id: p.plan_id,
        name: p.name,
        starting_balance: p.starting_balance,
        profit_target_pct: p.profit_target_pct,
        max_drawdown_pct: p.max_drawdown_pct,
        drawdown_mode: p.drawdown_mode,
        daily_loss_pct: p.daily_loss_pct,
        daily_reset: p.daily_reset,
        max_leverage: p.max_leverage,
        max_symbol_notional: p.max_symbol_notional,
        max_total_notional: p.max_total_notional,
        news_freeze: p.news_freeze,
        allowed_venues: p.allowed_venues,
        rules_version: p.rules_version,
      })),
    });
  };
}

/** `?from&to` (ISO 8601, inclusive) and `?symbol` (events concerning it); the engine judges the values. */
export function getCalendar(clients: Clients): RequestHandler {
  return async (req, res) => {
    const query = parse(CalendarQuery, req.query);
    const reply = await clients.engine.getCalendar(
      { from: query.from ?? "", to: query.to ?? "", symbol: query.symbol ?? "" },
      originOf(res),
    );
    res.status(200).json({
      data: reply.events.map((e) => ({
        id: e.id,
        title: e.title,
        scheduled_at: e.scheduled_at,
        symbols: e.symbols,
        asset_classes: e.asset_classes,
      })),
    });
  };
}
