/**
 * What an installed app's frame may use of the browser, in one place: the iframe's `allow` attribute
 * (`mountSurface`) and the frame page's `Permissions-Policy` header (`node/serve.ts`) both come from
 * here. Every powerful feature is off: an app reaches the camera, the microphone, the clipboard, files or
 * notifications only through the Capability Gateway, which runs them in the host page as the host.
 * Plain data, no DOM: the node server imports it too.
 */

/** Permissions-policy features an app's frame never gets: those Chromium 156 knows (it warns about any other). */
export const DENIED_FRAME_FEATURES = [
  "accelerometer",
  "browsing-topics",
  "camera",
  "clipboard-read",
  "clipboard-write",
  "compute-pressure",
  "display-capture",
  "encrypted-media",
  "fullscreen",
  "gamepad",
  "geolocation",
  "gyroscope",
  "hid",
  "identity-credentials-get",
  "idle-detection",
  "local-fonts",
  "magnetometer",
  "microphone",
  "midi",
  "otp-credentials",
  "payment",
  "picture-in-picture",
  "publickey-credentials-create",
  "publickey-credentials-get",
  "screen-wake-lock",
  "serial",
  "storage-access",
  "usb",
  "window-management",
  "xr-spatial-tracking",
] as const;

/** The iframe `allow` attribute: every feature above delegated to no origin. */
export const FRAME_ALLOW_ATTRIBUTE = DENIED_FRAME_FEATURES.map((feature) => `${feature} 'none'`).join("; ");

/** The frame page's `Permissions-Policy` header: every feature above allowed to no origin. */
export const FRAME_PERMISSIONS_POLICY = DENIED_FRAME_FEATURES.map((feature) => `${feature}=()`).join(", ");
