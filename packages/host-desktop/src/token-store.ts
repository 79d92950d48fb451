/**
 * Where the desktop keeps the device token (the secret the page signs in to the AppServer with): in the desktop's
 * keyring (libsecret's Secret Service) where one runs, else in the sign-in config file, readable by this user
 * alone (0600), and the person is told so.
 *
 * At start the config file is read; a token in it is moved into the keyring (stored, then the file rewritten
 * without it), keyed by the AppServer's URL; a config without a token takes it from the keyring. The page gets
 * the config with its token as before: only where it rests changes.
 */
/** Where the device token rests: `keyring`, `file` (0600, no keyring runs) or `none` (no token at all). */
export type TokenStorage = "keyring" | "file" | "none";

export interface Keyring {
  store(serverUrl: string, token: string): boolean;
  lookup(serverUrl: string): string | undefined;
}
export interface SettledToken {
  /** The config the page is served, with its token (when there is one). */
  readonly config: Record<string, unknown>;
  readonly storage: TokenStorage;
  /** What the person is told about it. */
  readonly notice?: string;
}

/**
 * Settles where the token of `config` (read from `file`) rests: moved into `keyring` when it takes it (the file
 * rewritten without it, 0600), or kept in the file (made 0600) with a notice; a config without one gets the
 * keyring's. `writeFile` writes the file whole (mode 0600).
 */
export function settleToken(config: Record<string, unknown>, file: string, keyring: Keyring, writeFile: (path: string, text: string) => void): SettledToken {
  const serverUrl = typeof config["server_url"] === "string" ? config["server_url"] : undefined;
  const token = typeof config["device_token"] === "string" ? config["device_token"] : undefined;
  if (serverUrl === undefined) return { config, storage: token === undefined ? "none" : "file" };
  if (token !== undefined) {
    if (keyring.store(serverUrl, token) && keyring.lookup(serverUrl) === token) {
      const { device_token: _moved, ...rest } = config;
      writeFile(file, JSON.stringify(rest, null, 2));
      return { config, storage: "keyring", notice: `the device token was moved into the keyring; ${file} no longer holds it` };
    }
    writeFile(file, JSON.stringify(config, null, 2));
    return { config, storage: "file", notice: `no keyring answers here: the device token stays in ${file}, readable by you alone` };
  }
  const kept = keyring.lookup(serverUrl);
  if (kept === undefined) return { config, storage: "none" };
  return { config: { ...config, device_token: kept }, storage: "keyring" };
}
