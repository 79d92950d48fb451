/**
 * Which app instances and operations belong to which conversation (spec 5.3 ownership). The instance
 * manager of the next issue implements this port; until then the Runtime runs no instances or
 * operations, so an envelope that names one names something it does not own.
 */
export interface InstanceDirectory {
  ownsInstance(conversationId: string, appScope: string, instanceId: string): boolean;
  ownsOperation(conversationId: string, operationId: string): boolean;
  /** Whether `appScope` has a live instance (suspended included) serving the conversation: a subscription's `conversation` scope. */
  hasInstanceIn(conversationId: string, appScope: string): boolean;
}

export const NO_INSTANCES: InstanceDirectory = {
  ownsInstance: () => false,
  ownsOperation: () => false,
  hasInstanceIn: () => false,
};
