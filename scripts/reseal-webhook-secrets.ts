// `npm run wallet:reseal`: re-seals every stored webhook secret under WEBHOOK_MASTER_KEY, with the wallet's
// own settings (DATABASE_URL, WEBHOOK_MASTER_KEY, WEBHOOK_MASTER_KEY_PREVIOUS). Prints counts only. Exits 1
// when a row could not be opened or changed under it, so a rotation script stops before dropping a key.
import { openDatabase } from "../kernel/db.js";
import { createLogger } from "../kernel/log.js";
import { resealWebhookSecrets } from "../wallet/keys/reseal.js";
import { sealerFromSettings } from "../wallet/keys/sealed.js";
import { loadWalletSettings } from "../wallet/config.js";

const settings = loadWalletSettings(process.env);
const log = createLogger("wallet-reseal", settings.LOG_LEVEL);
if (settings.DATABASE_URL === undefined) log.warn("DATABASE_URL unset: re-sealing the embedded database in DATA_DIR");
const sealer = sealerFromSettings(settings);
const db = await openDatabase({
  url: settings.DATABASE_URL,
  dataDir: settings.DATA_DIR,
  poolSize: 1,
  embeddedName: "pglite-wallet",
  log,
});
try {
  const result = await resealWebhookSecrets(db.pool, sealer);
  log.info({ ...result, masterKeyId: sealer.currentKeyId }, "webhook secrets re-sealed");
  process.exitCode = result.unreadable > 0 || result.raced > 0 ? 1 : 0;
} finally {
  await db.close();
}
