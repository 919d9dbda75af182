# Alcazaba server: `docker run -e DISCORD_TOKEN=... -v alcazaba-data:/data alcazaba`
# Without DISCORD_TOKEN, `alcazaba run` needs a terminal for the terminal table
# (`docker run -it -v alcazaba-data:/data alcazaba`); without either it says so and exits 2.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    DATA_DIR=/data

WORKDIR /app
COPY pyproject.toml README.md ./
COPY requirements ./requirements
COPY engine ./engine
COPY render ./render
COPY bot ./bot
COPY migrations ./migrations
# requirements/test.txt pins every package, the postgres extra's included (constraints
# install only what '.[postgres]' asks for: no test tools).
RUN pip install -c requirements/test.txt '.[postgres]' \
    && useradd --create-home --uid 10001 --shell /usr/sbin/nologin alcazaba \
    && mkdir -p /data \
    && chown alcazaba:alcazaba /data

USER alcazaba
WORKDIR /home/alcazaba
VOLUME ["/data"]
CMD ["alcazaba", "run"]
