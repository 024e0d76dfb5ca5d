import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { GatewayHttpModule } from '../http/http.module';
import { AccountUsageService } from './account-usage.service';
import { HealthService } from './health.service';
import { MetricsService } from './metrics.service';
import { QueueWaitService } from './queue-wait.service';
import { StageMetricsService } from './stage-metrics.service';
import { SystemController } from './system.controller';

/**
 * Health, readiness, metrics and queue status; exports HealthService and MetricsService (the refusal
 * count) for MCP, the stage histograms for the context pipeline, and an account's usage for admin. configure-app.ts reaches
 * MetricsService through the application context.
 */
@Module({
  imports: [AuthModule, GatewayHttpModule],
  controllers: [SystemController],
  providers: [HealthService, MetricsService, QueueWaitService, StageMetricsService, AccountUsageService],
  exports: [HealthService, MetricsService, StageMetricsService, AccountUsageService],
})
export class SystemModule {}
