import type { AppPort, RuntimeView } from "@lineup/runtime";
import type { AppStateChange, LineUpAppRuntimeSDK } from "./types.js";

export interface AppSdkOptions {
  /** Default `<app_scope>:main` — core apps run as one global instance (spec 4.4). */
  readonly instance_id?: string;
  readonly entrypoint?: string;
}

/**
 * The SDK a core app receives, over the Runtime's internal `AppPort` for its `app_scope`. The app sees
 * projections only: its view model, its inbox, and the actions it may dispatch (spec 6).
 */
export function createAppSdk(port: AppPort, options: AppSdkOptions = {}): LineUpAppRuntimeSDK {
  return {
    app: Object.freeze({
      app_scope: port.app_scope,
      app_version: port.record.installed_version,
      instance_id: options.instance_id ?? `${port.app_scope}:main`,
      kind: port.record.kind,
      entrypoint: options.entrypoint ?? "main",
      scope: {},
      granted_permissions: [],
    }),
    state: {
      snapshot: () => port.view(),
      subscribe(listener) {
        let previous = port.view();
        return port.subscribeView((view) => {
          const change = diff(previous, view);
          previous = view;
          listener(view, change);
        });
      },
    },
    agentMessages: {
      list: (request) => port.listMessages(request ?? {}),
      subscribe: (subscribeOptions, handler) => port.subscribeMessages(subscribeOptions, handler),
      acknowledge: (messageId) => port.acknowledge(messageId),
    },
    actions: {
      async dispatch(action) {
        if (action.type === "conversation.start") {
          const { agent_id, workspace_id, title } = action;
          return (await port.startConversation({ agent_id, workspace_id, ...(title === undefined ? {} : { title }) })).receipt;
        }
        return port.dispatch(action);
      },
    },
  };
}

function diff(before: RuntimeView, after: RuntimeView): AppStateChange {
  return {
    lifecycle: before.lifecycle !== after.lifecycle,
    conversations: JSON.stringify(before.conversations) !== JSON.stringify(after.conversations),
    actions: before.queued_actions !== after.queued_actions || before.failed_actions.length !== after.failed_actions.length,
  };
}
