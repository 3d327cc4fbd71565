export declare const SIZE_BUDGET_BYTES: number;
export declare function measureSize(): Promise<{ minifiedBytes: number; gzippedBytes: number; budgetBytes: number }>;
