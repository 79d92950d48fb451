/** Stylesheets are bundled (and inlined) by the app build. */
declare module "*.css";
