// Types of server-secrets.mjs.
interface SecretEnv {
  DATA_DIR?: string;
  SESSION_SECRET?: string;
  DEV_OUTBOX_TOKEN?: string;
  ORIGIN_HASH_SECRET?: string;
  WEBHOOK_SECRET_KEY?: string;
}
export declare function readOrCreateSecretFile(dataDir: string | undefined, name: string): string;
export declare function sessionSecret(env: SecretEnv): string;
export declare function devOutboxToken(env: SecretEnv): string;
export declare function originHashSecret(env: SecretEnv): string;
export declare function webhookSecretKey(env: SecretEnv): string;
