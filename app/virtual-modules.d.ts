declare module "virtual:enhancement-script" {
  /** URL of the static pages' enhancement script (scripts/vite-enhancement-script.ts). */
  const url: string;
  export default url;
}
