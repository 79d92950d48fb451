/** The fixture apps import their stylesheets, which the app build bundles, as the apps do. */
declare module "*.css";
