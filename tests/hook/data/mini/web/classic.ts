import { $Schema } from "./schema";

export class Schema extends $Schema {}
