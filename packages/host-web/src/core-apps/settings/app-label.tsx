/** An app in a settings row: its name for people, then its scope; the scope alone when it is not installed. */
export type AppNames = (appScope: string) => string | undefined;

export function AppLabel({ scope, appName }: { scope: string; appName?: AppNames | undefined }) {
  const name = appName?.(scope);
  return name === undefined ? (
    <code>{scope}</code>
  ) : (
    <span class="app-label">
      {name} <code class="muted">{scope}</code>
    </span>
  );
}
