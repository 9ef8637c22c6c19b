// The /v1 listener's routes (trading, snake_case JSON). Each route names the scope it requires.
import { Router } from "express";
import type { Clients } from "../clients.js";
import { notFound } from "../http/common.js";
import { authenticate, type AuthDeps } from "./auth.js";
import { listPlans, listTickers } from "./catalogue.js";

export function v1Router(clients: Clients, auth: AuthDeps): Router {
  const router = Router();
  router.get("/tickers", authenticate(auth, "READ_ONLY"), listTickers(clients));
  router.get("/plans", authenticate(auth, "READ_ONLY"), listPlans(clients));
  // Unknown paths still authenticate first: no route discovery without a key.
  router.use(authenticate(auth, ""), notFound());
  return router;
}
