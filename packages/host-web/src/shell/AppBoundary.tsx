import { Component, type ComponentChildren } from "preact";
import { t } from "../i18n/index.js";

interface Props {
  readonly app_scope: string;
  /** Called once when the app throws while rendering; the shell falls back to `chat`. */
  readonly onCrash: (app_scope: string, error: unknown) => void;
  readonly children: ComponentChildren;
}

/**
 * Safe recovery (spec 4.3): an error boundary around each app. A crashed app renders nothing further and
 * the shell brings `chat` back to the front with a notice, instead of a blank page.
 */
export class AppBoundary extends Component<Props, { crashed: boolean }> {
  override state = { crashed: false };

  override componentDidCatch(error: unknown): void {
    this.setState({ crashed: true });
    this.props.onCrash(this.props.app_scope, error);
  }

  override render() {
    if (this.state.crashed) return <div class="app-crashed" role="alert">{t("shell.appCrashedInline")}</div>;
    return this.props.children;
  }
}
