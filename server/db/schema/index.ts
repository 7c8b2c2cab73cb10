export * from "./auth.ts";
export * from "./billing.ts";
export * from "./blog.ts";
export * from "./customer.ts";
export * from "./mail.ts";
export * from "./ops.ts";
export * from "./vpn.ts";
export * from "./staff.ts";
