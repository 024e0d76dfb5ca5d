import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { GatewayHttpModule } from '../http/http.module';
import { HealthService } from './health.service';
import { MetricsService } from './metrics.service';
import { QueueWaitService } from './queue-wait.service';
import { StageMetricsService } from './stage-metrics.service';
import { SystemController } from './system.controller';

/**
 * Health, readiness, metrics and queue status; exports HealthService and MetricsService (the refusal
 * count) for MCP, and the stage histograms for the context pipeline. configure-app.ts reaches
 * MetricsService through the application context.
 */
@Module({
  imports: [AuthModule, GatewayHttpModule],
  controllers: [SystemController],
  providers: [HealthService, MetricsService, QueueWaitService, StageMetricsService],
  exports: [HealthService, MetricsService, StageMetricsService],
})
export class SystemModule {}
